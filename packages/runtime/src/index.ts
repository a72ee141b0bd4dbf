/**
 * failbook-runtime: what a service runs (SPEC 17). The domain's types, the one classifier, the
 * dispatcher with every action, clocks, random sources, redaction, the record writer, and the
 * adapters to OpenTelemetry and MCP. No dependencies, no YAML: the project comes from the
 * module `failbook gen ts` writes (`PROJECT`). `failbook`, the CLI, runs this very code.
 */

// The domain
export type { Registry, Verdict, VerdictExample, MatchRule, FailureClass, SideEffectState, VerdictStatus, StatusMatcher, FieldValue, ErrorField } from "./model/registry.js";
export { statusOf, sideEffectOf } from "./model/registry.js";
export type { Playbook, CompensationAction, ActionName, RetryAction, Budgets, BackoffFormula, Jitter, RetryAfterPolicy, RetryQuota } from "./model/playbook.js";
export { ACTION_NAMES, isRetryAction } from "./model/playbook.js";
export type { FleetSettings, PolicyScope, CircuitBreakerPolicy, RetryBudgetPolicy, RetryThrottlingPolicy, HedgingPolicy, JitterRange, ToolDeclaration } from "./model/playbook.js";
export type { Call, Response, AdapterError, PolicyState, BreakerState } from "./model/fixture.js";
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
export type { DispatchRecord, RecordedOutcome, RecordSink } from "./model/record.js";

// The engine
export { classify, type Classification } from "./engine/classify.js";
export { ruleMatches, ruleCovers } from "./engine/match.js";
export { createDispatcher, isIdempotent, actionFor, PROJECT_FORMAT } from "./engine/dispatch.js";
export type { Dispatcher, DispatcherOptions, ProjectData, DispatchOptions, DispatchResult, AttemptFn, AttemptContext, Effects, BudgetLedger } from "./engine/dispatch.js";
export { FLEET_DEFAULTS, answerSync, memoryFleetStore, MemoryFleetState, type MemoryFleetStoreOptions, type FleetOptions, type FleetStore, type FleetReply, type FleetReport, type FleetTotals, type FleetStatus, type FleetMode, type FleetEvent, type FleetTimers } from "./engine/fleet/index.js";
export { VirtualClock, virtualClock, realClock, type Clock, type RealClockOptions, type AbortSignalOf, type AbortSignalLike } from "./engine/clock.js";
export { seededRandom, cryptoRandom, type Random } from "./engine/random.js";
export { retryDelay } from "./engine/backoff.js";
export { idempotencyKey, traceId, canonicalJson } from "./engine/idempotency.js";
export { runSteps, type SagaStep, type SagaOptions } from "./engine/saga.js";
export { runWaves, type WaveCall, type WaveOptions } from "./engine/waves.js";
export type { RunResult } from "./engine/runlog.js";
export { worstCase, type WorstCase } from "./engine/worstcase.js";
export { createRedactor, redactValue, REDACTED, type Redactor } from "./engine/redact.js";

// Production's sinks: agents, telemetry, the record file `failbook replay` reads
export { toMcpToolResult, type McpToolResult } from "./mcp/result.js";
export { recordOutcome, type OutcomeSpan, type RecordOptions } from "./telemetry/otel.js";
export type { DispatcherSnapshot, BreakerSnapshot, RetryBudgetSnapshot, RetryThrottlingSnapshot, RetryQuotaSnapshot, RateLimitSnapshot, FleetSnapshot } from "./telemetry/snapshot.js";
export { createRecordWriter, type RecordWriter } from "./replay/writer.js";
