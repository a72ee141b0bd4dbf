/**
 * A code lens on each fixture: the fixture simulated (failbook simulate, the same engine),
 * its outcome in one line, and whether it matches its golden. Simulated once per check of
 * the project and file.
 */
import { Chalk } from "chalk";
import type { CodeLens, CodeLensParams } from "vscode-languageserver";
import { simulateProject, type FixtureResult } from "../simulate/project.js";
import { outcomeLine } from "../simulate/report/text.js";
import { clip, plural } from "../util/text.js";
import { redactorOf, type ProjectState, type Workspace } from "./workspace.js";

const PLAIN = new Chalk({ level: 0 });

const simulated = new WeakMap<ProjectState, { generation: number; byFile: Map<string, Promise<FixtureResult[]>> }>();

export async function codeLenses(workspace: Workspace, params: CodeLensParams): Promise<CodeLens[]> {
  const view = workspace.view(params.textDocument.uri);
  if (view?.kind !== "fixture" || !view.state.project?.registry || !view.state.project.playbook) return [];
  const { state } = view;
  const shown = state.files.display(view.absolute);
  const redact = redactorOf(state);
  const results = await simulationOf(state, shown);
  return results.map((r) => {
    const at = { line: r.position.line - 1, character: r.position.column - 1 };
    return { range: { start: at, end: at }, command: { title: redact(lensTitle(r)), command: "" } };
  });
}

function simulationOf(state: ProjectState, shown: string): Promise<FixtureResult[]> {
  let cache = simulated.get(state);
  if (!cache || cache.generation !== state.generation) simulated.set(state, (cache = { generation: state.generation, byFile: new Map() }));
  let results = cache.byFile.get(shown);
  const project = state.project;
  if (!results && project) {
    const fixtures = project.fixtures.filter((f) => f.doc.file === shown);
    results = simulateProject({ ...project, fixtures }).then((sim) => sim.results);
    cache.byFile.set(shown, results);
  }
  return results ?? Promise.resolve([]);
}

/** "=> recovered  transient_timeout · 3 attempts · 2 retried · 10800ms · ✓ matches its golden" */
export function lensTitle(r: FixtureResult): string {
  if (r.error) return `✗ cannot simulate: ${clip(r.error.message, 120)}`;
  const outcome = r.outcome ? outcomeLine(r.outcome, PLAIN) : "=> no outcome";
  const golden = r.passed === true ? "✓ matches its golden" : r.passed === false ? `✗ differs from its golden (${plural(r.diff?.length ?? 0, "difference")})` : "no expect block";
  return `${outcome} · ${golden}`;
}
