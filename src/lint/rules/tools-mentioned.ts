/** The tools a project mentions, for the rules about what a breaker guards (SPEC 18). */
import { globMatches } from "failbook-runtime/engine/match.js";
import { fixtureCalls } from "failbook-runtime/model/fixture.js";
import { classify } from "failbook-runtime/engine/classify.js";
import type { AdapterError } from "failbook-runtime/model/fixture.js";
import type { CircuitBreakerPolicy, Playbook, ToolGlobs } from "failbook-runtime/model/playbook.js";
import type { MatchRule, Registry } from "failbook-runtime/model/registry.js";
import type { Project } from "../../load/project.js";

const mentions = new WeakMap<Project, readonly string[]>();

export const toolGlobs = (tools: ToolGlobs): readonly string[] => (typeof tools === "string" ? [tools] : tools);
export const breakerGlobs = (policy: CircuitBreakerPolicy): readonly string[] => toolGlobs(policy.tools);

const isGlob = (text: string): boolean => text.includes("*") || text.includes("?");

/**
 * Every tool name or glob the project mentions: the fixtures' calls (compensations
 * included), the playbook's `tools:` entries and fallback tools, and the registry's `tool`
 * tests and examples. Sorted, once per project.
 */
export function mentionedTools(project: Project): readonly string[] {
  let out = mentions.get(project);
  if (out !== undefined) return out;
  const names = new Set<string>();
  for (const { value } of project.fixtures) {
    for (const { spec } of fixtureCalls(value)) {
      names.add(spec.call.tool);
      if (spec.compensation) names.add(spec.compensation.call.tool);
    }
  }
  const playbook = project.playbook?.value;
  for (const glob of Object.keys(playbook?.tools ?? {})) names.add(glob);
  for (const action of Object.values(playbook?.verdicts ?? {})) if (action.action === "fallback") names.add(action.tool);
  for (const verdict of project.registry?.value.verdicts ?? []) {
    for (const rule of verdict.match ?? []) ruleTools(rule, names);
    for (const example of verdict.examples ?? []) if (example.tool !== undefined) names.add(example.tool);
  }
  out = [...names].sort();
  mentions.set(project, out);
  return out;
}

function ruleTools(rule: MatchRule, into: Set<string>, depth = 0): void {
  if (rule.tool !== undefined) for (const tool of toolGlobs(rule.tool)) into.add(tool);
  if (depth < 8 && rule.cause) ruleTools(rule.cause, into, depth + 1);
  if (depth < 8 && rule.not) ruleTools(rule.not, into, depth + 1);
}

/** Does a glob of a breaker reach a mention: a name it matches, the same glob, or a glob that covers its literal tool. */
export function reaches(glob: string, mention: string): boolean {
  if (!isGlob(mention)) return globMatches(glob, mention);
  return glob === mention || (!isGlob(glob) && globMatches(mention, glob));
}

/** The literal tool names the project mentions that these globs guard. */
export function guardedMentions(project: Project, globs: readonly string[]): string[] {
  return mentionedTools(project).filter((tool) => !isGlob(tool) && globs.some((glob) => globMatches(glob, tool)));
}

/**
 * Does the error a policy fails its stopped attempts as (an open breaker's `circuit_open`, an
 * empty rate limit's `rate_limited`) classify only to the fallback verdict, for every literal
 * tool the globs guard (or any tool, when the project names none)? Then nobody said what it means.
 */
export function onlyFallbackClassifies(project: Project, registry: Registry, playbook: Playbook, error: AdapterError, globs: readonly string[]): boolean {
  const tools = guardedMentions(project, globs);
  return (tools.length === 0 ? [undefined] : tools).every((tool) => classify(registry, error, tool, playbook).verdict === registry.fallback);
}
