/**
 * failbook as a library: load a project, lint it, classify an error, dispatch a call (the
 * same dispatcher `failbook simulate` runs), simulate fixtures, generate TypeScript
 * bindings, render the registry, compare two versions. The CLI is a thin layer over this.
 */

// The domain
export type { Registry, Verdict, MatchRule, FailureClass, SideEffectState, VerdictStatus, StatusMatcher } from "./model/registry.js";
export { statusOf, sideEffectOf } from "./model/registry.js";
export type { Playbook, CompensationAction, ActionName, RetryAction, Budgets, BackoffFormula, Jitter, RetryAfterPolicy, RetryQuota } from "./model/playbook.js";
export { ACTION_NAMES, isRetryAction } from "./model/playbook.js";
export type { Fixture, Call, Response, AdapterError, StepSpec, WaveSpec } from "./model/fixture.js";
export type { Config, Severity, SeveritySetting } from "./model/config.js";
export { DEFAULT_CODE_PATTERN } from "./model/config.js";
export type { Finding, Position, PathSegment } from "./model/finding.js";
export { UsageError } from "./model/errors.js";
export type {
  Outcome,
  OutcomeKind,
  DispatchEvent,
  EventType,
  Envelope,
  EnvelopeError,
  RecoveryPacket,
  DeadLetterEntry,
  AttemptError,
} from "./model/outcome.js";
export { OUTCOME_KINDS, EVENT_TYPES, isSuccess } from "./model/outcome.js";

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

// The engine
export { classify, type Classification } from "./engine/classify.js";
export { ruleMatches, ruleCovers } from "./engine/match.js";
export { createDispatcher, isIdempotent, actionFor } from "./engine/dispatch.js";
export type { Dispatcher, DispatcherOptions, DispatchOptions, DispatchResult, AttemptFn, AttemptContext, Effects, BudgetLedger } from "./engine/dispatch.js";
export { VirtualClock, virtualClock, realClock, type Clock, type RealClockOptions } from "./engine/clock.js";
export { seededRandom, type Random } from "./engine/random.js";
export { retryDelay } from "./engine/backoff.js";
export { idempotencyKey, traceId, canonicalJson } from "./engine/idempotency.js";
export { runSteps, type SagaStep, type SagaOptions } from "./engine/saga.js";
export { runWaves, type WaveCall, type WaveOptions } from "./engine/waves.js";
export type { RunResult } from "./engine/runlog.js";
export { worstCase, type WorstCase } from "./engine/worstcase.js";
export { createRedactor, redactValue, REDACTED, type Redactor } from "./engine/redact.js";

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

// Agents and telemetry
export { toMcpToolResult, type McpToolResult } from "./mcp/result.js";
export { recordOutcome, type OutcomeSpan, type RecordOptions } from "./telemetry/otel.js";

// Replay (SPEC 14): records, the production sink's file, OpenTelemetry import
export type { DispatchRecord, RecordedOutcome, RecordSink } from "./model/record.js";
export { createRecordWriter, type RecordWriter } from "./replay/writer.js";
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
