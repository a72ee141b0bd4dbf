/**
 * `failbook explore`: a two-pane terminal browser. On the left the codes or the fixtures
 * (a tab each), on the right what `failbook explain` says about the selected code, or the
 * selected fixture's simulated timeline. Everything shown comes from ExploreData.
 */
import { Box, render, Text, useApp, useInput, useStdout, type Key } from "ink";
import { useEffect, useMemo, useRef, useState } from "react";
import { resultMark, statusMark, type ExploreData } from "./data.js";
import { wrapLine } from "./wrap.js";

type Tab = "codes" | "fixtures";
type Focus = "list" | "filter" | "details";

const TABS: readonly Tab[] = ["codes", "fixtures"];

/** One plain character of a chunk of keys: no special key is held. */
const NO_KEY: Key = {
  upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageDown: false, pageUp: false, home: false, end: false,
  return: false, escape: false, ctrl: false, shift: false, tab: false, backspace: false, delete: false, meta: false, super: false, hyper: false,
  capsLock: false, numLock: false,
};
const TAB_TITLES: Record<Tab, string> = { codes: "Codes", fixtures: "Fixtures" };

/** One line of the list, whichever the tab. */
interface Row {
  name: string;
  mark: string;
  /** The mark's colour, when colour is on. */
  tone: string;
  note: string;
  search: string;
  details: (width: number) => string;
}

function rowsOf(data: ExploreData): Record<Tab, Row[]> {
  return {
    codes: data.codes.map((e) => ({
      name: e.code,
      mark: statusMark(e.status),
      tone: e.status === "active" ? "green" : e.status === "deprecated" ? "yellow" : "gray",
      note: e.class,
      search: e.search,
      details: e.details,
    })),
    fixtures: data.fixtures.map((e) => ({
      name: e.name,
      mark: resultMark(e.passed),
      tone: e.passed === true ? "green" : e.passed === false ? "red" : "gray",
      note: e.kind,
      search: e.search,
      details: () => e.details(),
    })),
  };
}

interface Size {
  columns: number;
  rows: number;
}

/** The terminal's size, kept current across resizes. */
function useTerminalSize(): Size {
  const { stdout } = useStdout();
  const read = (): Size => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return size;
}

interface Layout {
  listWidth: number;
  /** Per tab, the width names are padded to, or undefined when the notes do not fit. */
  nameWidth: Record<Tab, number | undefined>;
  detailWidth: number;
  /** Lines inside each pane's border. */
  paneLines: number;
}

// Borders and one column of padding on each side of a pane.
const PANE_CHROME = 4;

function layoutFor(size: Size, rows: Record<Tab, Row[]>): Layout {
  const widest = (list: Row[], field: "name" | "note") => Math.max(0, ...list.map((r) => r[field].length));
  // "› ● name  note"
  const labelWidth = (list: Row[]) => 4 + widest(list, "name") + 2 + widest(list, "note");
  const listWidth = Math.max(20, Math.min(Math.max(24, labelWidth(rows.codes), labelWidth(rows.fixtures)), Math.floor(size.columns * 0.4)));
  const nameWidth = (tab: Tab) => (labelWidth(rows[tab]) <= listWidth ? widest(rows[tab], "name") : undefined);
  // The whole view stays one line short of the screen so that Ink never clears the terminal.
  const paneLines = Math.max(3, size.rows - 1 - 2 - 2);
  return {
    listWidth,
    nameWidth: { codes: nameWidth("codes"), fixtures: nameWidth("fixtures") },
    detailWidth: Math.max(20, size.columns - listWidth - 2 * PANE_CHROME),
    paneLines,
  };
}

export interface ExploreProps {
  data: ExploreData;
  color: boolean;
}

export function Explore({ data, color }: ExploreProps) {
  const { exit } = useApp();
  const size = useTerminalSize();
  const rows = useMemo(() => rowsOf(data), [data]);
  const layout = layoutFor(size, rows);
  const [tab, setTab] = useState<Tab>("codes");
  const [focus, setFocus] = useState<Focus>("list");
  const [filters, setFilters] = useState<Record<Tab, string>>({ codes: "", fixtures: "" });
  const [selected, setSelected] = useState<Record<Tab, number>>({ codes: 0, fixtures: 0 });
  const [scroll, setScroll] = useState(0);

  const filter = filters[tab];
  const shown = useMemo(() => rows[tab].filter((r) => r.search.includes(filter.toLowerCase())), [rows, tab, filter]);
  const index = Math.min(selected[tab], Math.max(0, shown.length - 1));
  const current = shown[index];
  const lines = useMemo(
    () => (current ? current.details(layout.detailWidth).replace(/\n$/, "").split("\n").flatMap((line) => wrapLine(line, layout.detailWidth)) : []),
    [current, layout.detailWidth],
  );
  const maxScroll = Math.max(0, lines.length - layout.paneLines);
  const top = Math.min(scroll, maxScroll);
  const showFilter = focus === "filter" || filter !== "";
  const listLines = layout.paneLines - 1 - (showFilter ? 1 : 0);

  // Keys can arrive faster than Ink repaints (tmux `send-keys j j j`, a held key, a paste):
  // every move is a functional update of the state as the previous key left it, never of
  // the values this render saw, and the focus a key leaves is read by the next key at once.
  const focusNow = useRef(focus);
  focusNow.current = focus;
  const focusOn = (next: Focus) => {
    focusNow.current = next;
    setFocus(next);
  };
  const clampIndex = (i: number) => Math.max(0, Math.min(i, shown.length - 1));
  const selectBy = (delta: number) => {
    setSelected((s) => ({ ...s, [tab]: clampIndex(clampIndex(s[tab]) + delta) }));
    setScroll(0);
  };
  const selectAt = (to: number) => {
    setSelected((s) => ({ ...s, [tab]: clampIndex(to) }));
    setScroll(0);
  };
  const setFilter = (edit: (f: string) => string) => {
    setFilters((f) => ({ ...f, [tab]: edit(f[tab]) }));
    setSelected((s) => ({ ...s, [tab]: 0 }));
    setScroll(0);
  };
  const switchTab = () => {
    setTab((t) => TABS[(TABS.indexOf(t) + 1) % TABS.length]);
    focusOn("list");
    setScroll(0);
  };
  const clampScroll = (to: number) => Math.max(0, Math.min(to, maxScroll));
  const scrollBy = (delta: number) => setScroll((s) => clampScroll(clampScroll(s) + delta));
  const scrollAt = (to: number) => setScroll(clampScroll(to));

  useInput((input, key) => {
    if (key.ctrl && input === "c") return exit();
    // Plain keys that arrived together ("jjj") are handled one by one, each in the focus the
    // one before left; in the filter the rest of the chunk is text.
    const plain = input.length > 1 && !key.ctrl && !key.meta && !input.startsWith("\u001b");
    const keys = plain ? [...input] : [input];
    for (let i = 0; i < keys.length; i++) {
      const one = keys[i] as string;
      const oneKey: Key = plain ? { ...NO_KEY, return: one === "\r", tab: one === "\t" } : key;
      if (focusNow.current === "filter") return onFilterKey(plain ? keys.slice(i).join("") : one, oneKey);
      if (one === "q") return exit();
      if (oneKey.tab || (focusNow.current === "list" && (oneKey.leftArrow || oneKey.rightArrow))) switchTab();
      else if (focusNow.current === "details") onDetailsKey(one, oneKey);
      else onListKey(one, oneKey);
    }
  });

  function onFilterKey(input: string, key: Key) {
    if (key.escape) {
      setFilter(() => "");
      focusOn("list");
    } else if (key.return) focusOn("list");
    else if (key.backspace || key.delete) setFilter((f) => f.slice(0, -1));
    else if (key.downArrow) selectBy(1);
    else if (key.upArrow) selectBy(-1);
    else if (!key.ctrl && !key.meta && !key.tab) typeFilter(input);
  }

  /** Append typed text to the filter; keys typed quickly can arrive as one chunk ("tim\r"). */
  function typeFilter(chunk: string) {
    const [text, ...rest] = chunk.split(/[\r\n]/);
    const printable = (text as string).replace(/[\u0000-\u001F\u007F]/g, "");
    if (printable !== "") setFilter((f) => f + printable);
    if (rest.length > 0) focusOn("list");
  }

  function onDetailsKey(input: string, key: Key) {
    const page = Math.max(1, layout.paneLines - 1);
    if (key.escape || key.leftArrow || input === "h") focusOn("list");
    else if (key.downArrow || input === "j") scrollBy(1);
    else if (key.upArrow || input === "k") scrollBy(-1);
    else if (key.pageDown || key.return || input === " ") scrollBy(page);
    else if (key.pageUp || input === "b") scrollBy(-page);
    else if (key.home || input === "g") scrollAt(0);
    else if (key.end || input === "G") scrollAt(maxScroll);
  }

  function onListKey(input: string, key: Key) {
    const page = Math.max(1, listLines - 1);
    if (key.downArrow || input === "j") selectBy(1);
    else if (key.upArrow || input === "k") selectBy(-1);
    else if (key.pageDown) selectBy(page);
    else if (key.pageUp) selectBy(-page);
    else if (key.home || input === "g") selectAt(0);
    else if (key.end || input === "G") selectAt(shown.length - 1);
    else if (input === "/") focusOn("filter");
    else if (key.escape && filter !== "") setFilter(() => "");
    else if (key.return && current) focusOn("details");
  }

  const tone = (name: string): string | undefined => (color ? name : undefined);
  const nameWidth = layout.nameWidth[tab];
  const start = Math.max(0, Math.min(index - Math.floor(listLines / 2), shown.length - listLines));
  const border = (focused: boolean) => ({ borderStyle: focused ? ("bold" as const) : ("round" as const), borderColor: focused ? tone("cyan") : undefined, borderDimColor: !focused });

  return (
    <Box flexDirection="column" width={size.columns} height={size.rows - 1}>
      <Text wrap="truncate-end">
        <Text bold>failbook explore</Text>
        <Text dimColor>  {data.title}</Text>
      </Text>
      <Box height={layout.paneLines + 2}>
        <Box {...border(focus !== "details")} flexDirection="column" paddingX={1} width={layout.listWidth + PANE_CHROME} flexShrink={0}>
          <Text wrap="truncate-end">
            {TABS.map((t, i) => (
              <Text key={t}>
                {i > 0 ? <Text dimColor> │ </Text> : null}
                <Text bold={t === tab} inverse={t === tab} dimColor={t !== tab}>
                  {` ${TAB_TITLES[t]} ${rows[t].length} `}
                </Text>
              </Text>
            ))}
          </Text>
          {showFilter ? (
            <Text wrap="truncate-end">
              <Text color={tone("cyan")}>/</Text>
              {filter}
              {focus === "filter" ? <Text inverse> </Text> : null}
              <Text dimColor>
                {"  "}
                {shown.length} of {rows[tab].length}
              </Text>
            </Text>
          ) : null}
          {shown.length === 0 ? (
            <Text dimColor wrap="truncate-end">
              {filter === "" ? `no ${TAB_TITLES[tab].toLowerCase()}` : `nothing matches '${filter}' (esc clears)`}
            </Text>
          ) : (
            shown.slice(start, start + listLines).map((r, i) => {
              const isSelected = start + i === index;
              return (
                <Text key={r.name} wrap="truncate-end" inverse={isSelected && focus !== "details" && color}>
                  <Text bold={isSelected}>{isSelected ? "› " : "  "}</Text>
                  <Text color={tone(r.tone)}>{r.mark}</Text> <Text bold={isSelected}>{r.name}</Text>
                  {nameWidth === undefined ? null : <Text dimColor>{" ".repeat(nameWidth - r.name.length + 2) + r.note}</Text>}
                </Text>
              );
            })
          )}
        </Box>
        <Box {...border(focus === "details")} flexDirection="column" paddingX={1} flexGrow={1}>
          {lines.slice(top, top + layout.paneLines).map((line, i) => (
            <Text key={top + i} wrap="truncate-end">
              {line === "" ? " " : line}
            </Text>
          ))}
        </Box>
      </Box>
      <Text dimColor wrap="truncate-end">
        {helpLine(focus, lines.length > layout.paneLines ? `lines ${top + 1}-${Math.min(lines.length, top + layout.paneLines)} of ${lines.length}` : undefined)}
      </Text>
    </Box>
  );
}

function helpLine(focus: Focus, position: string | undefined): string {
  const keys: Record<Focus, string> = {
    list: "↑↓/jk move · tab/←→ codes|fixtures · / filter · enter details · q quit",
    filter: "type to filter · ↑↓ move · enter keep · esc clear · ctrl-c quit",
    details: "↑↓/jk scroll · space/pgdn page · esc/← back · tab codes|fixtures · q quit",
  };
  return position ? `${keys[focus]}   ${position}` : keys[focus];
}

export interface RunExploreOptions {
  color: boolean;
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
}

// The terminal's alternate screen, as a pager uses: quitting gives back the screen as it was.
const ENTER_ALT_SCREEN = "\u001B[?1049h\u001B[H";
const LEAVE_ALT_SCREEN = "\u001B[?1049l";

/** Run the browser until the user quits. */
export async function runExplore(data: ExploreData, options: RunExploreOptions): Promise<void> {
  const stdout = options.stdout ?? process.stdout;
  stdout.write(ENTER_ALT_SCREEN);
  try {
    const instance = render(<Explore data={data} color={options.color} />, {
      stdout,
      stdin: options.stdin ?? process.stdin,
      exitOnCtrlC: false,
      patchConsole: false,
    });
    await instance.waitUntilExit();
  } finally {
    stdout.write(LEAVE_ALT_SCREEN);
  }
}
