/**
 * Word-wrap for the details pane. The pane scrolls by rows, so every row must be known before
 * Ink lays it out; the text may carry colour codes, which take no columns and must carry over
 * to the continuation rows.
 */

const TOKEN = /(\u001B\[[0-9;]*m)|( +)|([^ \u001B]+|\u001B)/g;

/** The columns `text` takes on the terminal (one a code point; colour codes take none). */
export function visibleWidth(text: string): number {
  return Array.from(text.replace(/\u001B\[[0-9;]*m/g, "")).length;
}

/**
 * `line` as rows of at most `width` columns. Continuation rows are indented two more than the
 * line, and start by replaying the colour codes seen so far, so the styles in force carry on.
 */
export function wrapLine(line: string, width: number): string[] {
  if (visibleWidth(line) <= width) return [line];
  const leading = line.replace(/\u001B\[[0-9;]*m/g, "").match(/^ */)?.[0].length ?? 0;
  const indent = " ".repeat(Math.min(leading + 2, Math.floor(width / 2)));
  const rows: string[] = [];
  let codes = "";
  let row = "";
  let used = 0;
  let space = 0;
  const breakRow = () => {
    rows.push(row);
    row = indent + codes;
    used = indent.length;
    space = 0;
  };
  for (const [, code, spaces, word] of line.matchAll(TOKEN)) {
    if (code) {
      row += code;
      codes += code;
    } else if (spaces) space += spaces.length;
    else if (word) {
      let chars = Array.from(word);
      if (used > indent.length && used + space + chars.length > width) breakRow();
      row += " ".repeat(space);
      used += space;
      space = 0;
      // A word wider than the row is cut where the row ends.
      while (used + chars.length > width) {
        const room = width - used;
        if (room > 0) {
          row += chars.slice(0, room).join("");
          chars = chars.slice(room);
        }
        breakRow();
      }
      row += chars.join("");
      used += chars.length;
    }
  }
  rows.push(row);
  return rows;
}
