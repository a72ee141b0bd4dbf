/** The rule list is data: one module per rule, in the order the SPEC (section 7) lists them. */
import { registerRules, type LintRule } from "../rule.js";
import { adrUnresolved } from "./adr-unresolved.js";
import { backoffScheduleShort } from "./backoff-schedule-short.js";
import { breakerGuardsNothing } from "./breaker-guards-nothing.js";
import { breakerTrippedByOneCall } from "./breaker-tripped-by-one-call.js";
import { breakerUnclassified } from "./breaker-unclassified.js";
import { rateLimitUnclassified } from "./rate-limit-unclassified.js";
import { hedgingNonIdempotent } from "./hedging-non-idempotent.js";
import { classRetryCeiling } from "./class-retry-ceiling.js";
import { classUnknown } from "./class-unknown.js";
import { codeFormat } from "./code-format.js";
import { compensationNotIdempotent } from "./compensation-not-idempotent.js";
import { deprecatedReplacement } from "./deprecated-replacement.js";
import { docsMissing } from "./docs-missing.js";
import { duplicateCode } from "./duplicate-code.js";
import { exampleMisclassified } from "./example-misclassified.js";
import { fallbackRetried } from "./fallback-retried.js";
import { fallbackUndefined } from "./fallback-undefined.js";
import { fieldTypeMismatch } from "./field-type-mismatch.js";
import { fieldUndeclared } from "./field-undeclared.js";
import { fixtureInvalid } from "./fixture-invalid.js";
import { jitterRangeInverted } from "./jitter-range-inverted.js";
import { fleetWithoutSync } from "./fleet-without-sync.js";
import { fleetSyncTooSlow } from "./fleet-sync-too-slow.js";
import { matcherMessageContains } from "./matcher-message-contains.js";
import { matcherShadowed } from "./matcher-shadowed.js";
import { playbookExhaustive } from "./playbook-exhaustive.js";
import { playbookUnknownVerdict } from "./playbook-unknown-verdict.js";
import { policyMustEscalate } from "./policy-must-escalate.js";
import { redactPatternInvalid } from "./redact-pattern-invalid.js";
import { reservedInUse } from "./reserved-in-use.js";
import { retryAfterFieldUndeclared } from "./retry-after-field-undeclared.js";
import { retryBudget } from "./retry-budget.js";
import { retryCommitted } from "./retry-committed.js";
import { retryNotRetryable } from "./retry-not-retryable.js";
import { retryableNotRetried } from "./retryable-not-retried.js";
import { retriesUnreachable } from "./retries-unreachable.js";
import { secretInProject } from "./secret-in-project.js";
import { unknownSideEffectSilent } from "./unknown-side-effect-silent.js";
import { verdictUntested } from "./verdict-untested.js";

export const RULES: LintRule[] = [
  duplicateCode,
  codeFormat,
  classUnknown,
  playbookExhaustive,
  playbookUnknownVerdict,
  retryNotRetryable,
  retryCommitted,
  policyMustEscalate,
  backoffScheduleShort,
  classRetryCeiling,
  retryBudget,
  fallbackUndefined,
  fallbackRetried,
  matcherShadowed,
  matcherMessageContains,
  reservedInUse,
  deprecatedReplacement,
  docsMissing,
  adrUnresolved,
  compensationNotIdempotent,
  fixtureInvalid,
  // SPEC 16
  redactPatternInvalid,
  // SPEC Part III amendments
  secretInProject,
  // SPEC 12
  fieldUndeclared,
  fieldTypeMismatch,
  // SPEC 13
  unknownSideEffectSilent,
  exampleMisclassified,
  verdictUntested,
  retryableNotRetried,
  // SPEC 18
  breakerUnclassified,
  rateLimitUnclassified,
  breakerTrippedByOneCall,
  breakerGuardsNothing,
  jitterRangeInverted,
  hedgingNonIdempotent,
  retryAfterFieldUndeclared,
  // SPEC 21
  retriesUnreachable,
  // SPEC 23
  fleetWithoutSync,
  fleetSyncTooSlow,
];

registerRules(RULES);
