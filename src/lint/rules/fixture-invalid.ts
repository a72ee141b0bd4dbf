import type { PathSegment } from "failbook-runtime/model/finding.js";
import type { Fixture, Response } from "failbook-runtime/model/fixture.js";
import type { Playbook } from "failbook-runtime/model/playbook.js";
import type { Loaded } from "../../load/project.js";
import type { LintRule, Report } from "../rule.js";
import { didYouMean, verdictIndex } from "./support.js";

type Emit = (message: string, path: PathSegment[], more?: Pick<Report, "target" | "related" | "fix">) => void;

const SHAPES = ["call", "steps", "waves"] as const;
/** Lists in an outcome whose entries name a verdict (CallSummary). */
const SUMMARY_LISTS = ["steps", "compensations", "calls"] as const;

export const fixtureInvalid: LintRule = {
  id: "fixture-invalid",
  severity: "error",
  verdictFields: ["code"],
  description: "A fixture that names an unknown verdict, lacks responses, or duplicates a name.",
  check({ registry, playbook, fixtures, report }) {
    const codes = [...verdictIndex(registry.value).keys()];
    const known = new Set(codes);
    const firstByName = new Map<string, Loaded<Fixture>>();
    for (const loaded of fixtures) {
      const { value: fixture, doc } = loaded;
      const emit: Emit = (message, path, more = {}) => report({ message, doc, path, ...more });
      checkShape(fixture, emit);
      checkResponses(fixture, emit);
      checkVerdicts(fixture, emit, (code) => known.has(code), codes);
      checkState(fixture, playbook.value, emit);
      const first = firstByName.get(fixture.name);
      if (!first) {
        firstByName.set(fixture.name, loaded);
        continue;
      }
      emit(`fixture name '${fixture.name}' is already used by another fixture; names identify fixtures in simulate, goldens and baselines, so rename one`, ["name"], {
        related: [{ message: "first used here", position: first.doc.locate(["name"]) }],
      });
    }
  },
  example: `# playbooks/fixtures/timeout.yaml
name: timeout
call: { id: call_1, tool: search.query }
responses: []                  # no response to replay
expect: { verdict: transient_timout }   # no such verdict`,
  fix: "Give the fixture the responses its dispatch needs, name verdicts the registry has, and give each fixture a name of its own.",
};

/** A `state:` (SPEC 18) may only start what the playbook declares. */
function checkState(fixture: Fixture, playbook: Playbook, emit: Emit): void {
  const declared = Object.keys(playbook.circuit_breakers ?? {});
  for (const name of Object.keys(fixture.state?.breakers ?? {})) {
    if (declared.includes(name)) continue;
    emit(`fixture '${fixture.name}' starts breaker '${name}', which the playbook does not declare under circuit_breakers${didYouMean(name, declared).hint}; name a declared breaker`, ["state", "breakers", name], { target: "key" });
  }
  if (fixture.state?.throttling !== undefined && playbook.retry_throttling === undefined) {
    emit(`fixture '${fixture.name}' starts retry throttling, but the playbook has no retry_throttling; remove state.throttling, or add retry_throttling to the playbook`, ["state", "throttling"], { target: "key" });
  }
}

function checkShape(fixture: Fixture, emit: Emit): void {
  const present = SHAPES.filter((k) => fixture[k] !== undefined);
  if (present.length === 0) {
    emit(`fixture '${fixture.name}' has no call, steps or waves, so there is nothing to dispatch; add exactly one of them`, ["name"]);
    return;
  }
  for (const extra of present.slice(1)) {
    emit(`fixture '${fixture.name}' has both ${present[0]} and ${extra}; keep exactly one of call, steps or waves`, [extra], { target: "key" });
  }
}

function checkResponses(fixture: Fixture, emit: Emit): void {
  const empty = (list: Response[] | undefined, path: PathSegment[], what: string) => {
    if (list !== undefined && list.length === 0) emit(`${what} of fixture '${fixture.name}' has an empty responses list; record at least the first attempt's response`, path);
  };
  if (fixture.call) {
    if (fixture.responses === undefined) {
      emit(`fixture '${fixture.name}' has a call but no responses; add responses: with one entry per attempt (status: ok, error or needs_input)`, ["call"], { target: "key" });
    }
    empty(fixture.responses, ["responses"], "the call");
  }
  const steps = fixture.steps ?? [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    empty(step.responses, ["steps", i, "responses"], `step '${step.call.id}'`);
    empty(step.compensation?.responses, ["steps", i, "compensation", "responses"], `the compensation of step '${step.call.id}'`);
  }
  const waves = fixture.waves ?? [];
  for (let w = 0; w < waves.length; w++) {
    const calls = waves[w].calls;
    for (let i = 0; i < calls.length; i++) empty(calls[i].responses, ["waves", w, "calls", i, "responses"], `call '${calls[i].call.id}' of wave ${w + 1}`);
  }
}

/** Every verdict an `expect` block names must exist, or the golden can never hold. */
function checkVerdicts(fixture: Fixture, emit: Emit, known: (code: string) => boolean, codes: string[]): void {
  if (!fixture.expect) return;
  const named = expectedVerdicts(fixture.expect);
  for (let n = 0; n < named.length; n++) {
    const { value, path } = named[n];
    if (typeof value !== "string" || known(value)) continue;
    const where = path.map((s, k) => (typeof s === "number" ? `[${s}]` : k === 0 ? s : `.${s}`)).join("");
    const { hint, fix } = didYouMean(value, codes);
    emit(`${where} '${value}' of fixture '${fixture.name}' names no verdict of the registry, so the golden can never hold; fix the code${hint}`, path, { fix });
  }
}

/** Every `verdict` a golden names: the outcome's, and those of its events, steps, compensations and calls (a list: no generator's steps for each of 10,000 fixtures). */
export function expectedVerdicts(expect: Record<string, unknown> | undefined): { value: unknown; path: PathSegment[] }[] {
  const out: { value: unknown; path: PathSegment[] }[] = [];
  if (!expect) return out;
  if ("verdict" in expect) out.push({ value: expect.verdict, path: ["expect", "verdict"] });
  for (let l = 0; l < EXPECT_LISTS.length; l++) {
    const list = EXPECT_LISTS[l];
    const items = expect[list];
    if (!Array.isArray(items)) continue;
    for (let k = 0; k < items.length; k++) {
      const item: unknown = items[k];
      if (item !== null && typeof item === "object" && "verdict" in item) out.push({ value: (item as Record<string, unknown>).verdict, path: ["expect", list, k, "verdict"] });
    }
  }
  return out;
}

/** Lists in an expect block whose entries name a verdict: its events, and the outcome's summaries. */
const EXPECT_LISTS = ["events", ...SUMMARY_LISTS] as const;
