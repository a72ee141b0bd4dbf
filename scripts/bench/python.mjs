// The Python rows of `npm run bench` (SPEC 25): failbook_runtime for Python against tenacity's
// `retry` in the same process (Debian's python3-tenacity), and 10,000 fixtures through the
// Python runtime against the TypeScript one: in process (the runtimes alone, each with its
// project loaded) and as whole commands (`failbook simulate --runtime py` ÷ `failbook simulate`,
// which adds writing the `gen py` module and importing it).
//
//   node scripts/bench/python.mjs ts-fixtures ROOT DIR OUT   (a child of the rows below: the
//     TypeScript side in process; writes OUT/bindings.py and OUT/requests.jsonl for the Python side)
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The first interpreter that has what `need` imports: $FAILBOOK_PYTHON, python3, Debian's. */
function interpreter(need) {
  for (const candidate of [...new Set([process.env.FAILBOOK_PYTHON, "python3", "/usr/bin/python3"].filter(Boolean))]) {
    const r = spawnSync(candidate, ["-c", `import sys; ${need}; sys.exit(sys.version_info < (3, 9))`], { encoding: "utf8" });
    if (r.status === 0) return candidate;
  }
  return null;
}

function json(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 1 << 28, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  if (r.status !== 0) return { failed: (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n").slice(-2).join(" ") };
  try {
    return JSON.parse(r.stdout.trim().split("\n").pop());
  } catch {
    return { failed: `no JSON result: ${r.stdout.slice(0, 80)}` };
  }
}

/** The rows; `alternate` and `fmt*` are bench.mjs's. */
export function pythonRows({ root, bin, dir, runs, quick, log, fmtMs, fmtUs, alternate }) {
  const rows = [];
  const raw = {};
  const failedRow = (row, target, why) => rows.push({ row, value: null, figure: `failed: ${String(why).slice(0, 120)}`, target, pass: false });
  const signed = (us) => `${us >= 0 ? "+" : "−"}${fmtUs(Math.abs(us))}`;

  // A successful dispatch against tenacity's retry, in one process.
  const withTenacity = interpreter("import tenacity");
  const dispatchTarget = "≤ +0 µs";
  if (withTenacity === null) {
    failedRow("failbook_runtime (Python) `dispatch()`, succeeds first time, over tenacity's `retry`", dispatchTarget, "no python3 with tenacity (apt-get install python3-tenacity)");
  } else {
    const out = join(root, ".bench/python");
    mkdirSync(out, { recursive: true });
    const bindings = join(out, "root_bindings.py");
    spawnSync(process.execPath, [bin, "gen", "py", "--out", bindings], { cwd: root, encoding: "utf8" });
    const d = (raw.dispatch = json(withTenacity, [join(root, "scripts/bench/python.py"), "dispatch", bindings, String(quick ? 5_000 : 50_000)], root));
    log(`python dispatch: ${JSON.stringify(d)}`);
    if (d.failed) failedRow("failbook_runtime (Python) `dispatch()`, succeeds first time, over tenacity's `retry`", dispatchTarget, d.failed);
    else {
      rows.push({ row: `tenacity ${d.tenacity.version} \`retry\` overhead, same attempt, same process (Python ${d.python}; succeeds first time)`, value: d.tenacity.overheadUs, figure: fmtUs(d.tenacity.overheadUs), target: "—", pass: null, cpuUs: d.tenacity.cpuOverheadUs });
      for (const [label, r] of [
        ["failbook_runtime (Python) `dispatch()`, succeeds first time with its own key, over tenacity's `retry`", d.ownKey],
        ["failbook_runtime (Python) `dispatch()`, succeeds first time (key derived), over tenacity's `retry`", d.derivedKey],
      ]) {
        rows.push({ row: label, value: r.overTenacityUs, figure: `${signed(r.overTenacityUs)} (${fmtUs(r.overheadUs)})`, target: dispatchTarget, pass: r.overTenacityUs <= 0, cpuUs: r.cpuOverheadUs });
      }
    }
  }

  // 10,000 fixtures: the runtimes in process, then the commands.
  const python = interpreter("pass");
  const fixturesTarget = "≤ 2.0×";
  if (python === null) {
    failedRow("10k fixtures, failbook_runtime (Python) ÷ failbook-runtime", fixturesTarget, "no python3 (3.9+)");
    return { rows, raw };
  }
  const out = join(root, ".bench/python/10k");
  mkdirSync(out, { recursive: true });
  // Rounds in alternating order, the median of each round's CPU ratio: the host's speed drifts (issue 38).
  const rounds = [];
  for (let i = 0; i < Math.min(runs, 3); i++) {
    const sides = {};
    for (const side of i % 2 === 0 ? ["ts", "py"] : ["py", "ts"]) {
      sides[side] =
        side === "ts"
          ? json(process.execPath, [fileURLToPath(import.meta.url), "ts-fixtures", root, dir, out], root)
          : json(python, [join(root, "scripts/bench/python.py"), "fixtures", join(out, "bindings.py"), join(out, "requests.jsonl")], root);
      // The Python side reads what the TypeScript side wrote: the first round starts with it.
      if (i === 0 && side === "ts" && sides.ts.failed) break;
    }
    log(`fixtures in process, round ${i + 1}: ${JSON.stringify(sides)}`);
    rounds.push(sides);
  }
  raw.fixtures = rounds;
  const broken = rounds.map((r) => r.ts?.failed ?? r.py?.failed ?? (r.py === undefined ? "the TypeScript side failed" : undefined)).find((f) => f !== undefined);
  if (broken !== undefined) failedRow("10k fixtures, failbook_runtime (Python) ÷ failbook-runtime, in process", fixturesTarget, broken);
  else {
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const x = median(rounds.map((r) => r.py.cpuMs / r.ts.cpuMs));
    const py = median(rounds.map((r) => r.py.cpuMs));
    const ts = median(rounds.map((r) => r.ts.cpuMs));
    rows.push({
      row: `${rounds[0].py.fixtures.toLocaleString("en-US")} fixtures in process (project loaded), failbook_runtime (Python) ÷ failbook-runtime, CPU (median of ${rounds.length} alternating rounds)`,
      value: x,
      figure: `${x.toFixed(2)}× (${fmtMs(py)} ÷ ${fmtMs(ts)})`,
      target: fixturesTarget,
      pass: x <= 2 && rounds.every((r) => r.py.notOk === r.ts.notOk),
      cpuMs: py,
    });
    // The same rounds by wall clock: V8 collects garbage on a second core, Python runs on one.
    const w = median(rounds.map((r) => r.py.ms / r.ts.ms));
    const pyMs = median(rounds.map((r) => r.py.ms));
    const tsMs = median(rounds.map((r) => r.ts.ms));
    rows.push({
      row: `${rounds[0].py.fixtures.toLocaleString("en-US")} fixtures in process (project loaded), failbook_runtime (Python) ÷ failbook-runtime, wall (the same rounds)`,
      value: w,
      figure: `${w.toFixed(2)}× (${fmtMs(pyMs)} ÷ ${fmtMs(tsMs)})`,
      target: fixturesTarget,
      pass: w <= 2 && rounds.every((r) => r.py.notOk === r.ts.notOk),
      cpuMs: py,
    });
  }
  const both = (raw.commands = alternate("simulate --runtime py ÷ simulate, 10k", [bin, "simulate", "--runtime", "py"], [bin, "simulate"], dir, Math.min(runs, 3)));
  rows.push({ row: "`failbook simulate --runtime py` ÷ `failbook simulate`, 10k fixtures (alternating; with writing and importing the 10k-code `gen py` module)", value: both.ratio, figure: `${both.ratio.toFixed(2)}× (${fmtMs(both.aMs)} ÷ ${fmtMs(both.bMs)})`, target: "—", pass: null });
  return { rows, raw };
}

/** The TypeScript side in process: every fixture of DIR through simulateFixture, the project loaded first (untimed). */
async function tsFixtures(root, dir, out) {
  const lib = await import(pathToFileURL(join(root, "dist/index.js")).href);
  const { project } = lib.loadProject({ cwd: dir });
  const rules = lib.projectRules(project);
  const fixtures = project.fixtures.map((f) => f.value);
  writeFileSync(join(out, "bindings.py"), lib.generatePython(project).text);
  writeFileSync(join(out, "requests.jsonl"), fixtures.map((fixture) => JSON.stringify({ fixture, seed: 0 })).join("\n") + "\n");
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let notOk = 0;
  for (const fixture of fixtures) if (!(await lib.simulateFixture(rules, fixture, { seed: 0 })).ok) notOk++;
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { fixtures: fixtures.length, notOk, ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

if (process.argv[2] === "ts-fixtures") {
  const [root, dir, out] = process.argv.slice(3);
  console.log(JSON.stringify(await tsFixtures(root, dir, out)));
}
