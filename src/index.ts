/**
 * failbook as a library: load a project, lint it, classify an error, dispatch a call (the
 * same dispatcher `failbook simulate` runs), simulate fixtures, generate TypeScript
 * bindings, render the registry, compare two versions. The CLI is a thin layer over this.
 */

// The runtime (failbook-runtime, SPEC 17): the domain, the classifier, the dispatcher, clocks,
// random sources, redaction, the record writer, recordOutcome, toMcpToolResult
export * from "failbook-runtime/index.js";
export type { Fixture, StepSpec, WaveSpec } from "failbook-runtime/model/fixture.js";
export type { Config, Severity, SeveritySetting } from "failbook-runtime/model/config.js";
export { DEFAULT_CODE_PATTERN } from "failbook-runtime/model/config.js";
export type { Finding, Position, PathSegment } from "failbook-runtime/model/finding.js";
export { UsageError } from "failbook-runtime/model/errors.js";

// Loading
export { loadProject, loadProjectFrom, InvalidProject, type Project, type Loaded, type LoadOptions, type LoadResult } from "./load/project.js";
export { diskReader, type FileReader } from "./load/files.js";
export { findConfig } from "./load/config.js";
export { parseYaml, type YamlDocument, type YamlSource } from "./load/yaml.js";

// Lint
export { lintProject, runRules, allRuleMeta, sortFindings } from "./lint/lint.js";
export type { LintRule, RuleMeta, RuleContext } from "./lint/rule.js";
export { RULES } from "./lint/rules/index.js";
export { formatText } from "./lint/report/text.js";
export { formatJson } from "./lint/report/json.js";
export { formatSarif } from "./lint/report/sarif.js";
export { formatGithub } from "./lint/report/github.js";

// Simulation
export { simulateFixture, type Rules, type FixtureSimulation } from "./simulate/fixture.js";
export { simulateProject, projectRules, type FixtureResult, type ProjectSimulation } from "./simulate/project.js";
export { compareGolden, type GoldenDiff } from "./simulate/golden.js";
export { computeCoverage, type Coverage } from "./simulate/coverage.js";

// Generated bindings, the rendered registry
export { generateTypeScript, CodegenError, type GenerateOptions, type GeneratedTypeScript } from "./codegen/typescript.js";
export { generatePython, type GeneratedPython } from "./codegen/python.js";
export { generateJsonSchema, type GeneratedJsonSchema } from "./codegen/jsonschema.js";
export { renderRegistry, renderModel, projectModel, RENDER_FORMATS, type RenderFormat } from "./render/render.js";
export { explainCode } from "./render/explain.js";
export { actionReference, actionReferenceMarkdown, explainActionText, type ActionReference } from "./render/actions.js";
export { scaffoldFixture, ScaffoldError, type Scaffold } from "./simulate/scaffold.js";

// Replay (SPEC 14): production's records, OpenTelemetry import
export { Replayer, type Replayed, type ReplayRules } from "./replay/replayer.js";
export { importOtlp, type ImportResult, type ImportProblem } from "./replay/otlp.js";

// Change control
export { loadBaseline } from "./change/baseline.js";
export { checkChanges, sideOf, type ChangeReport } from "./change/check.js";
export { diffProjects, type DiffReport } from "./change/diff.js";
export { CHANGE_RULES } from "./change/rules/index.js";
export type { Side } from "./change/rule.js";

// Storms (SPEC 19): a fleet of dispatchers against an upstream model, on one virtual clock
export { runStorm, type StormResult, type StormRules, type StormOptions } from "./storm/run.js";
export { loadStorms, type StormLoad } from "./storm/load.js";
export { STORM_RULES, lintStorms } from "./storm/lint.js";
export type { Storm, StormVerdict, StormExpect } from "./storm/model.js";
