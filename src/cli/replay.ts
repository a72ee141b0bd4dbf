/**
 * `failbook replay`: production records replayed against the current playbook (or a
 * baseline, `--against`), with the transitions a reviewer needs; `failbook replay merge`
 * adds up the JSON reports of shards.
 */
import { type Command, Option } from "commander";
import { UsageError } from "failbook-runtime/model/errors.js";
import { keepingVocabulary, patternRedactor } from "../load/redaction.js";
import { loadSetupApart, type Redaction } from "../replay/load-setup.js";
import { buildReport, changedPercent, formatReplayJson, formatReplayMarkdown, formatReplayText, mergeReports, parseReport, type ReplayReport } from "../replay/report.js";
import { defaultWorkers, replayFiles, type ReplayProgress } from "../replay/run.js";
import type { SharedSetup } from "../replay/setup.js";
import { parseShard, type Shard } from "../replay/shard.js";
import { choiceFlag, type CommandRegistrar, findingsText, type Globals, intFlag, readShardReports } from "./command.js";
import type { Io } from "./io.js";

const FORMATS = ["text", "json", "md"] as const;
const MAX_WORKERS = 64;
const MAX_EXAMPLES = 100;

interface ReplayFlags {
  against?: string;
  format?: string;
  shard?: string;
  workers?: string;
  examples?: string;
  maxChanged?: string;
  seed?: string;
}

const HELP = `
A record is one call as production saw it: one JSON object a line (schemas/record.schema.json),
in .jsonl files, or .jsonl.gz read as gzip. The library's dispatcher writes them
(dispatch(call, attempt, { record })); failbook import otlp makes them from traces.

Each record is dispatched as a one-call fixture under the current registry and playbook, by
the same dispatcher simulate runs (virtual clock, seeded jitter). Attempt n reads the n-th
recorded response; when the playbook asks for an attempt production never made, the outcome
is unknown (beyond the recording): counted apart, never guessed. The playbook's retry_quota
is shared by every record, in file order (so such a replay runs on one thread, unsharded).

Without --against, each replayed outcome is compared with the record's recorded outcome;
with --against REF (a config file, a directory holding one, or git:REV), every record is
replayed under both versions and the two are compared.

The report: records replayed, changed and unknown records, invalid lines, the transitions
"old kind -> new kind" with the replayed verdict, their counts, share and the first
--examples locations (file:line), largest first; then records per verdict (an unknown
record under the verdict it was acting on) and the invalid lines (file:line: what is
wrong). An invalid line is counted and the replay goes on.

Output formats:
  text  for a terminal (a progress line on an interactive one)
  md    Markdown for a pull-request comment
  json  { records, invalid, unknown, changed, unrecorded, against, files,
          examples_per_transition, verdicts: {code: n},
          transitions: [{ from, to, verdict, count, percent, examples: ["file:line"] }],
          invalid_lines: [{ location, message }], shard? }

Beyond one machine: --shard I/N replays only the records whose stable hash of (run_id,
call.id) falls in shard I of N; run N jobs with I = 1..N and the same files, then
failbook replay merge REPORT.json... adds their JSON reports up into the unsharded report.

Exit status: 0 clean; 1 an invalid line, or more than --max-changed percent of records
changed (a record whose outcome becomes unknown counts as changed: the edit made it
unknowable, and a gate must not pass on what it cannot tell); 2 replay could not run (a
missing file, a bad --shard or flag, no config, a bad REF, a line of millions of JSON values
whose parse could outgrow a worker's memory, a byte that is not UTF-8).

Examples:
  failbook replay records/2026-11.jsonl.gz
  failbook replay records/*.jsonl.gz --against git:origin/main --format md > comment.md
  failbook replay records/*.jsonl.gz --against git:origin/main --max-changed 5
  failbook replay records/*.jsonl.gz --shard 2/4 --format json > shard-2.json
  failbook replay merge shard-*.json --format md`;

/** What `replay merge` reads of the flags; given to `replay` before `merge`, they count as merge's. */
const MERGE_FLAGS = ["format", "maxChanged"] as const;

const maxChangedOption = () =>
  new Option("--max-changed <pct>", "exit 1 when more than this percent of records changed (a record whose outcome becomes unknown counts as changed)");

export const registerReplay: CommandRegistrar = (program, run) => {
  const replay = program
    .command("replay")
    // `replay`'s own flags stop at `merge`, so `replay merge ... --format md` reaches merge.
    .enablePositionalOptions()
    .description("replay production records (JSON Lines) against the playbook, or against a baseline: what would this change have done?")
    .argument("[files...]", "record files: .jsonl, or .jsonl.gz read as gzip")
    .option("--against <ref>", "replay under this baseline too and compare: a config file, a directory holding one, or git:REV")
    .addOption(new Option("--format <format>", "output format").choices([...FORMATS]).default("text"))
    .option("--shard <i/n>", "replay only shard I of N (1-based), by a stable hash of (run_id, call.id)")
    .option("--workers <n>", `worker threads (default: the number of cores, here ${defaultWorkers()})`)
    .option("--examples <k>", "example locations per transition (default 3)")
    .addOption(maxChangedOption())
    .option("--seed <n>", "jitter seed (default 0)")
    .addHelpText("after", HELP)
    .action(run((io, globals, files: string[], flags: ReplayFlags) => replayCommand(io, globals, files, flags)));
  replay
    .command("merge")
    .description("add up the JSON reports of the shards of one replay into the unsharded report")
    .argument("<reports...>", "the JSON reports of failbook replay --shard I/N --format json, one per shard")
    .addOption(new Option("--format <format>", "output format").choices([...FORMATS]).default("json"))
    .addOption(maxChangedOption())
    .addHelpText(
      "after",
      `
The reports must be all N shards of one replay (the same files, --against and --examples),
each once. The merged JSON is byte for byte the report of the unsharded replay.
--format and --max-changed may also be given before merge (failbook replay --format md
merge ...); given both places, merge's own wins.

Exit status: 0 clean; 1 an invalid line or too many changed; 2 a report is missing,
repeated, unreadable, from another replay, or not of the shape replay --format json writes
(one line naming the file and the field).

Example:
  failbook replay merge shard-1.json shard-2.json shard-3.json shard-4.json --format md`,
    )
    .action(run((io, _globals, reports: string[], _flags: ReplayFlags, merge: Command) => mergeCommand(io, reports, mergeFlags(merge))));
};

async function replayCommand(io: Io, globals: Globals, files: string[], flags: ReplayFlags): Promise<number> {
  const format = choiceFlag("--format", flags.format, FORMATS, "text");
  if (files.length === 0) throw new UsageError("replay needs record files (.jsonl or .jsonl.gz), e.g. failbook replay records.jsonl.gz");
  const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
  const workers = intFlag("--workers", flags.workers);
  if (workers !== undefined && (workers < 1 || workers > MAX_WORKERS)) throw new UsageError(`--workers takes 1 to ${MAX_WORKERS}, not ${workers}`);
  const examples = intFlag("--examples", flags.examples) ?? 3;
  if (examples > MAX_EXAMPLES) throw new UsageError(`--examples takes 0 to ${MAX_EXAMPLES}, not ${examples}`);
  const maxChanged = percentFlag(flags.maxChanged);
  const seed = intFlag("--seed", flags.seed) ?? 0;
  if (seed > 0xffffffff) throw new UsageError(`--seed takes a 32-bit unsigned integer, not ${seed}`);

  const setup = await loadSetup(io, globals, flags.against, { seed, shard, examples });
  if (!setup) return 1;
  const shared = setup.sharedPolicy;
  if (shared !== undefined) {
    if (shard) throw new UsageError(`--shard cannot split this replay: the playbook's ${shared} is shared by every record in order, so a shard would replay with another state than the whole corpus; replay unsharded`);
    if (workers !== undefined && workers > 1) io.err(`failbook: note: the playbook's ${shared} is shared by every record in order, so the replay runs on one thread\n`);
  }

  const progress = io.interactive && format === "text" && process.stderr.isTTY ? progressLine() : undefined;
  const result = await replayFiles({ files, setup, ...(workers === undefined ? {} : { workers }), ...(progress ? { onProgress: progress.update } : {}) }).finally(() => progress?.close());
  const report = buildReport(result.tally, { files, against: flags.against ?? null, shard });
  return print(io, report, format, maxChanged);
}

/** Merge's flags: each one where the user typed it (merge's own first, then replay's), else merge's default; replay's other flags are refused. */
function mergeFlags(merge: Command): ReplayFlags {
  const replay = merge.parent!;
  const typed = (command: Command, key: string) => command.getOptionValueSource(key) === "cli";
  for (const option of replay.options) {
    const key = option.attributeName();
    if (typed(replay, key) && !(MERGE_FLAGS as readonly string[]).includes(key)) {
      throw new UsageError(`${option.long} is a flag of replay, not of replay merge (which takes --format and --max-changed); drop it`);
    }
  }
  const flags: ReplayFlags = { ...merge.opts<ReplayFlags>() };
  for (const key of MERGE_FLAGS) if (!typed(merge, key) && typed(replay, key)) flags[key] = replay.opts<ReplayFlags>()[key];
  return flags;
}

async function mergeCommand(io: Io, files: string[], flags: ReplayFlags): Promise<number> {
  const format = choiceFlag("--format", flags.format, FORMATS, "json");
  const maxChanged = percentFlag(flags.maxChanged);
  const reports = readShardReports(files, "replay", parseReport);
  return print(io, mergeReports(reports), format, maxChanged);
}

function print(io: Io, report: ReplayReport, format: (typeof FORMATS)[number], maxChanged: number | undefined): number {
  io.out(format === "json" ? formatReplayJson(report) : format === "md" ? formatReplayMarkdown(report) : formatReplayText(report, io.c));
  const tooMany = maxChanged !== undefined && changedPercent(report) > maxChanged;
  if (tooMany) io.err(`failbook: ${changedPercent(report)} % of records changed, more than --max-changed ${maxChanged}\n`);
  return report.invalid > 0 || tooMany ? 1 : 0;
}

/**
 * The replay's setup, loaded in a thread of its own (see loadSetupApart), and what the
 * loading found said here as every command says it. Undefined (the findings printed) when
 * the registry or playbook does not load.
 */
async function loadSetup(io: Io, globals: Globals, against: string | undefined, options: { seed: number; shard: Shard | undefined; examples: number }): Promise<SharedSetup | undefined> {
  const answer = await loadSetupApart({ config: globals.config, against, ...options });
  switch (answer.kind) {
    case "loaded":
      io.useRedactor(projectRedactor(answer.redaction));
      return answer.setup;
    case "unloaded":
      io.useRedactor(projectRedactor(answer.redaction));
      io.err(findingsText(io, answer.findings, answer.sources));
      io.err("failbook: cannot replay until the registry and playbook load; fix the errors above\n");
      return undefined;
    case "invalid":
      io.err(findingsText(io, answer.findings, answer.sources));
      return undefined;
    case "usage":
      throw new UsageError(answer.message);
    case "internal":
      throw Object.assign(new Error(answer.message), { stack: answer.stack });
  }
}

/** The project's redactor, as load/redaction.ts's projectRedactor makes it, from what the loading thread sent. */
const projectRedactor = (redaction: Redaction) => keepingVocabulary(patternRedactor(redaction.patterns), () => new Set(redaction.vocabulary));

function percentFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) > 100) throw new UsageError(`--max-changed takes a percentage from 0 to 100, not '${value}'`);
  return Number(value);
}

/** One line on stderr, rewritten at most five times a second, erased at the end. */
function progressLine(): { update: (p: ReplayProgress) => void; close: () => void } {
  let last = 0;
  let shown = false;
  const mb = (n: number) => (n / 1048576).toFixed(0);
  return {
    update(p) {
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      shown = true;
      const share = p.bytesTotal === 0 ? 100 : Math.floor((p.bytesRead * 100) / p.bytesTotal);
      process.stderr.write(`\r\x1b[Kreplaying: ${p.lines.toLocaleString("en-US")} lines read, ${mb(p.bytesRead)} of ${mb(p.bytesTotal)} MB (${share} %)`);
    },
    close() {
      if (shown) process.stderr.write("\r\x1b[K");
    },
  };
}
