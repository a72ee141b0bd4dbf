/**
 * `failbook storm`: run the project's storms (SPEC 19), a fleet of dispatchers against an
 * upstream model on one virtual clock, and check their `expect`; `--against` runs each under
 * a baseline's playbook too; `--sweep` maps the trigger's boundary; `storm merge` adds up
 * the shards of a sweep.
 */
import { Chalk } from "chalk";
import { type Command, Option } from "commander";
import { resolve } from "node:path";
import { loadBaseline } from "../change/baseline.js";
import { UsageError } from "failbook-runtime/model/errors.js";
import { sortFindings } from "../lint/lint.js";
import { parseShard } from "../replay/shard.js";
import { defaultWorkers, runStorms } from "../storm/jobs.js";
import { lintStorms } from "../storm/lint.js";
import { DEFAULT_STORMS, loadStorms } from "../storm/load.js";
import { formatStormHtml } from "../storm/print/html.js";
import { formatStormText } from "../storm/print/text.js";
import { failed, failuresOf, formatStormJson, mergeStormReports, parseStormReport, type StormReport } from "../storm/report.js";
import { parseSweep, SWEEP_NAMES } from "../storm/sweep.js";
import { SHARING_MODES, type SharingMode } from "../storm/model.js";
import { choiceFlag, type CommandRegistrar, findingsText, type Globals, intFlag, loadFor, readShardReports, subcommandFlags } from "./command.js";
// The rules a storm runs under, as a replay takes them (replay/setup.ts): imported here, not by
// command.ts, which every command loads (it would load the replay and node:v8 for `lint`).
import { rulesData } from "../replay/setup.js";
import type { Io } from "./io.js";

const FORMATS = ["text", "json", "html"] as const;
const MAX_WORKERS = 64;
const MAX_SEEDS = 100;
/** What `storm merge` reads of the flags; given to `storm` before `merge`, they count as merge's. */
const MERGE_FLAGS = ["format", "out"] as const;
/** Text written to a file has no colour. */
const plain = new Chalk({ level: 0 });

interface StormFlags {
  format?: string;
  out?: string;
  seed?: string;
  seeds?: string;
  against?: string;
  sweep?: string[];
  workers?: string;
  shard?: string;
}

const HELP = `
A storm file (kind: Storm, schemas/storm.schema.json) describes a fleet of clients, each
running the playbook's own dispatcher, against one upstream model: latency drawn when an
attempt starts (base + per_concurrent per attempt in progress, log-normal from median and
p99, or exponential from mean), an optional FIFO capacity and queue (past it, overload_error
at once), an error mix independent of load, a gateway deadline, and phases (the trigger)
that multiply arrivals, capacity, latency or error ratios for a time. An attempt its client
gave up on keeps the upstream busy until its latency has passed. Everything runs on one
virtual clock: minutes of traffic take seconds, and the same file and seed give the same
report, byte for byte.

The storms are the FILES given, else the config's storms: (globs, directories or files;
default ${DEFAULT_STORMS}). Each prints its verdict: stable (success never fell below 95 % of
calls offered), recovered (with the time after the last phase ended), degraded, or
metastable (the trigger ended and success stayed below half of calls offered to the end);
amplification (attempts sent / calls offered), success ratio, p50/p99/max call latency, and
a chart of calls offered, attempts sent and calls succeeded per bucket.

--against REF (a config file, a directory holding one, or git:REV) runs each storm under
that version's registry and playbook too, with the same seed, and shows the two side by
side, a regression marked. --against shared:client, shared:store or shared:fleet runs each
storm again under the same playbook with its clients sharing so instead (clients.shared:
each its own dispatcher, each syncing scope: fleet policies through a simulated store, or
one dispatcher for all): what sharing the playbook's state across the fleet buys.

--sweep NAME=FROM..TO:STEP (once or twice: a line or a map) runs the storm at every value
and maps stable / recovered / degraded / metastable, with the margin from the storm's own
value (the operating point) to the nearest metastable cell. NAME: ${SWEEP_NAMES.join(", ")}
(every phase's multiplier or length, the open loop's rate, the phases' error ratio, or
sync_ms: how often clients with shared: store sync with the store).
--workers N runs cells on N threads; --shard I/N runs the cells whose index is I-1 modulo N,
and failbook storm merge adds the shards' JSON reports up into the unsharded report.

Output formats:
  text  the summary, the chart and the checks, per storm (or the map, per sweep)
  json  { files, sweep, seed, seeds, against, storms: [{ index, file, name, current, baseline,
          regressions }], sweeps: [{ file, name, axes, operating, cells, nearest_metastable }] }
        where current and baseline hold summary, checks, cost (outcomes by kind, reason and
        queue, escalations, dead_letters, refused_retries, short_circuited, breakers' open
        time), seeds (with --seeds) and buckets (per step_ms: offered, sent, succeeded,
        retries, hedges, short_circuited, throttled, budget_refused, success_share,
        in_progress, queued, breakers_open, breakers_half_open, outcomes, attempt_errors)
  html  one self-contained page (no script, no request): time series, breaker states, summary,
        what the outage cost

--seeds N runs each storm (or sweep cell) with N seeds, from its own (or --seed's) on, and
reports the verdict most seeds reach with its spread (4/5 recovered). A bucket's success is
judged by what completed within the run: calls still on their first attempt when
duration_ms ends are not judged, and the drain never lifts the last buckets.

Exit status: 0 every expect holds; 1 an expect fails (the message names the bucket and the
figure; with json, html or --out also one line on stderr naming the storm or sweep cell), a
verdict got worse than the baseline's, or a storm file has an error; 2 storm could not run (no
config, a bad flag or REF, a path that finds no storm file, a storm or sweep cell too large).

Examples:
  failbook storm
  failbook storm storms/brownout.yaml --format html --out storm.html
  failbook storm --against git:origin/main
  failbook storm storms/brownout.yaml --against shared:client
  failbook storm storms/brownout.yaml --sweep sync_ms=50..1000:50
  failbook storm storms/brownout.yaml --sweep arrival_x=1..3:0.25 --sweep trigger_ms=5000..30000:5000 --workers 2
  failbook storm storms/brownout.yaml --sweep arrival_x=1..3:0.1 --shard 1/4 --format json > shard-1.json
  failbook storm merge shard-*.json`;

export const registerStorm: CommandRegistrar = (program, run) => {
  const storm = program
    .command("storm")
    // `storm`'s own flags stop at `merge`, so `storm merge ... --format html --out FILE` reaches merge.
    .enablePositionalOptions()
    .description("run storms: a fleet of clients, each running the playbook, against a struggling upstream; does the outage amplify, and does the service come back?")
    .argument("[files...]", "storm files (default: the config's storms:, else storms/)")
    .addOption(new Option("--format <format>", "output format").choices([...FORMATS]).default("text"))
    .option("--out <file>", "write the report to this file instead of stdout")
    .option("--seed <n>", "seed every storm with this instead of its own seed")
    .option("--seeds <n>", `run each storm (or sweep cell) with N seeds, from its own (or --seed's) on, and report the verdict most reach with the spread (1 to ${MAX_SEEDS})`)
    .option("--against <ref>", "run each storm under this baseline's playbook too and compare: a config file, a directory holding one, or git:REV; or shared:client|store|fleet, the same storm with its clients sharing so")
    .option("--sweep <spec>", "NAME=FROM..TO:STEP: run the storm over a grid of the trigger (repeat for a second axis)", (v: string, all: string[] = []) => [...all, v])
    .option("--workers <n>", `worker threads for a sweep's cells (default 1; this machine has ${defaultWorkers()} cores)`)
    .option("--shard <i/n>", "run only the jobs (storms, or a sweep's cells) whose index is I-1 modulo N")
    .addHelpText("after", HELP)
    .action(run((io, globals, files: string[], flags: StormFlags) => stormCommand(io, globals, files, flags)));
  storm
    .command("merge")
    .description("add up the JSON reports of the shards of one storm run into the unsharded report")
    .argument("<reports...>", "the JSON reports of failbook storm --shard I/N --format json, one per shard")
    .addOption(new Option("--format <format>", "output format").choices([...FORMATS]).default("json"))
    .option("--out <file>", "write the report to this file instead of stdout")
    .addHelpText(
      "after",
      `
The reports must be all N shards of one run (the same files, --sweep, --seed, --seeds and
--against), each once, as written: a report missing a field, holding another shard's job or
only part of its own is refused, naming the file and the field. The merged JSON is byte for
byte the report of the unsharded run; --format text or html prints it as failbook storm
would, and --out writes it to a file. --format and --out may also be given before merge.

Exit status: 0 every expect holds; 1 one fails; 2 a report is missing, repeated, unreadable,
malformed or from another run.

Example:
  failbook storm merge shard-*.json --format html --out storm.html`,
    )
    .action(run((io, _globals, reports: string[], _flags: StormFlags, merge: Command) => mergeCommand(io, reports, subcommandFlags<StormFlags>(merge, MERGE_FLAGS))));
};

async function stormCommand(io: Io, globals: Globals, files: string[], flags: StormFlags): Promise<number> {
  const format = choiceFlag("--format", flags.format, FORMATS, "text");
  const seed = intFlag("--seed", flags.seed);
  if (seed !== undefined && seed > 0xffffffff) throw new UsageError(`--seed takes a 32-bit unsigned integer, not ${seed}`);
  const seeds = intFlag("--seeds", flags.seeds) ?? 1;
  if (seeds < 1 || seeds > MAX_SEEDS) throw new UsageError(`--seeds takes 1 to ${MAX_SEEDS}, not ${seeds}`);
  const workers = intFlag("--workers", flags.workers);
  if (workers !== undefined && (workers < 1 || workers > MAX_WORKERS)) throw new UsageError(`--workers takes 1 to ${MAX_WORKERS}, not ${workers}`);
  const shard = flags.shard === undefined ? undefined : parseShard(flags.shard);
  const axes = (flags.sweep ?? []).map(parseSweep);
  if (axes.length > 2) throw new UsageError("--sweep takes at most two axes (a line or a map); sweep a third in separate runs");
  if (axes.length === 2 && axes[0].name === axes[1].name) throw new UsageError(`--sweep names ${axes[0].name} twice; sweep two different figures`);
  if (axes.length > 0 && flags.against !== undefined) throw new UsageError("--sweep and --against do not combine; sweep each version on its own and compare the maps");

  const { project, findings: loadFindings } = loadFor(io, globals);
  const current = rulesData(project);
  const load = loadStorms(project, files);
  const findings = sortFindings(lintStorms(project, load));
  if (!current) {
    io.err(findingsText(io, sortFindings([...loadFindings.filter((f) => f.severity === "error"), ...findings]), project.sources));
    io.err("failbook: cannot run storms until the registry and playbook load; fix the errors above\n");
    return 1;
  }
  if (findings.length > 0) io.err(findingsText(io, findings, project.sources));
  if (findings.some((f) => f.severity === "error")) {
    io.err("failbook: cannot run storms until their files are valid; fix the errors above\n");
    return 1;
  }
  if (load.storms.length === 0) {
    io.err(`failbook: no storm files ${project.config.storms === undefined ? `in ${DEFAULT_STORMS} (set storms: in failbook.yaml to look elsewhere)` : "match the config's storms:"}; nothing to run\n`);
    return 0;
  }
  const againstShared = sharingAgainst(flags.against);
  const baseline = flags.against === undefined || againstShared !== undefined ? undefined : rulesData(loadBaseline(flags.against, { currentConfig: project.configFile }).project);
  const storms = load.storms.map((storm) => ({ file: storm.doc.locate([]).file, storm }));
  const report = await runStorms({
    storms,
    setup: { current, baseline, seed, seeds, ...(againstShared === undefined ? {} : { againstShared }) },
    meta: { files: storms.map((s) => s.file), sweep: flags.sweep ?? [], seed: seed ?? null, seeds, against: flags.against ?? null },
    axes,
    ...(shard === undefined ? {} : { shard }),
    ...(workers === undefined ? {} : { workers }),
  });
  return print(io, report, format, flags.out);
}

/** `--against shared:MODE`: the same storm with its clients sharing so (SPEC 23), instead of another version's playbook. */
function sharingAgainst(against: string | undefined): SharingMode | undefined {
  if (against === undefined || !against.startsWith("shared:")) return undefined;
  const mode = against.slice("shared:".length);
  if (!(SHARING_MODES as readonly string[]).includes(mode)) throw new UsageError(`--against shared:MODE takes one of ${SHARING_MODES.map((m) => `shared:${m}`).join(", ")}, not '${against}'`);
  return mode as SharingMode;
}

async function mergeCommand(io: Io, files: string[], flags: StormFlags): Promise<number> {
  const format = choiceFlag("--format", flags.format, FORMATS, "json");
  const reports = readShardReports(files, "storm", parseStormReport);
  return print(io, mergeStormReports(reports), format, flags.out);
}

function print(io: Io, report: StormReport, format: (typeof FORMATS)[number], out: string | undefined): number {
  const text = format === "json" ? formatStormJson(report) : format === "html" ? formatStormHtml(report) : formatStormText(report, out === undefined ? io.c : plain);
  if (out === undefined) io.out(text);
  else {
    io.writeFile(resolve(out), text, { shown: out });
    io.err(`wrote ${out}\n`);
  }
  if (!failed(report)) return 0;
  // The text report on stdout already marks each failure; elsewhere, say which storm or cell failed and why.
  if (format !== "text" || out !== undefined) for (const line of failuresOf(report)) io.err(`failbook: ${line}\n`);
  return 1;
}
