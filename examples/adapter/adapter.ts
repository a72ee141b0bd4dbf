/**
 * An example adapter over the generated bindings (failbook.generated.ts, written by
 * `failbook gen ts` from the repository's failbook.yaml).
 *
 * An adapter does three things with them:
 *   1. translate its upstream's failure into the registry's vocabulary (AdapterError, whose
 *      kind must be one of ERROR_KINDS: a misspelt kind does not compile);
 *   2. let the generated classify() name the verdict: the same rules `failbook simulate` runs;
 *   3. answer with the envelope for that verdict, built by its constructor: the only way to
 *      make a FailureEnvelope, so no verdict string is ever invented by hand.
 * The switch in envelopeFor() has a `never` check: a verdict added to the registry is a
 * compile error here until the adapter handles it.
 */
import {
  classify,
  credentialInvalidEnvelope,
  evidenceStaleEnvelope,
  idempotencyConflictEnvelope,
  networkUnreachableEnvelope,
  permissionDeniedEnvelope,
  PLAYBOOK,
  policyDeniedEnvelope,
  rateLimitedEnvelope,
  schemaMismatchEnvelope,
  serverError5xxEnvelope,
  transientTimeoutEnvelope,
  unknownErrorEnvelope,
  writeCommittedEnvelope,
  type AdapterError,
  type CompensationAction,
  type EnvelopeInput,
  type FailureEnvelope,
  type FailureVerdict,
} from "./failbook.generated.js";

/** What this adapter's HTTP client reports when a payments call fails. */
export interface UpstreamFailure {
  /** The HTTP status, when a response arrived at all. */
  status?: number;
  /** The provider's own error code from the response body, e.g. "insufficient_scope". */
  code?: string;
  message: string;
  /** Where the transport failed before a response: the request never reached the server. */
  transport?: "dns" | "refused" | "tls" | "timeout";
  /** The provider confirmed the write although the call failed. */
  committed?: boolean;
  retryAfterMs?: number;
}

/** Step 1: the upstream's failure in the registry's vocabulary. */
export function toAdapterError(failure: UpstreamFailure): AdapterError {
  const common = {
    message: failure.message,
    http_status: failure.status,
    provider_code: failure.code,
    side_effect_state: failure.committed ? ("committed" as const) : failure.transport && failure.transport !== "timeout" ? ("none" as const) : ("unknown" as const),
    retry_after_ms: failure.retryAfterMs,
  };
  switch (failure.transport) {
    case "dns":
      return { kind: "dns_failure", ...common };
    case "refused":
      return { kind: "connection_refused", ...common };
    case "tls":
      return { kind: "tls_handshake_failed", ...common };
    case "timeout":
      return { kind: "timeout", ...common };
    case undefined:
      break;
  }
  switch (failure.status) {
    case 401:
      return { kind: "401_unauthorized", ...common };
    case 403:
      return { kind: "403_forbidden", ...common };
    case 409:
      return { kind: "409_conflict", ...common };
    case 412:
      return { kind: "412_precondition", ...common };
    case 429:
      return { kind: "429_rate_limited", ...common };
    default:
      return { kind: failure.status !== undefined && failure.status >= 500 ? "5xx" : "schema_validation", ...common };
  }
}

/** Step 3: the envelope for a verdict. Every verdict is handled; the `never` check proves it. */
export function envelopeFor(verdict: FailureVerdict, input: EnvelopeInput): FailureEnvelope {
  switch (verdict) {
    case "credential_invalid":
      return credentialInvalidEnvelope(input);
    case "evidence_stale":
      return evidenceStaleEnvelope(input);
    case "idempotency_conflict":
      return idempotencyConflictEnvelope(input);
    case "network_unreachable":
      return networkUnreachableEnvelope(input);
    case "permission_denied":
      return permissionDeniedEnvelope(input);
    case "policy_denied":
      return policyDeniedEnvelope(input);
    case "rate_limited":
      return rateLimitedEnvelope(input);
    case "schema_mismatch":
      return schemaMismatchEnvelope(input);
    case "server_error_5xx":
      return serverError5xxEnvelope(input);
    case "transient_timeout":
      return transientTimeoutEnvelope(input);
    case "unknown_error":
      return unknownErrorEnvelope(input);
    case "write_committed":
      return writeCommittedEnvelope(input);
    default:
      return unhandled(verdict);
  }
}

function unhandled(verdict: never): never {
  throw new Error(`verdict ${String(verdict)} has no envelope in this adapter`);
}

/** The whole failure path: what the agent is shown, and what the playbook says to do next. */
export function handleFailure(tool: string, failure: UpstreamFailure, traceId: string): { envelope: FailureEnvelope; action: CompensationAction } {
  const error = toAdapterError(failure);
  const verdict = classify(error, { tool });
  const envelope = envelopeFor(verdict, { error, trace_id: traceId });
  return { envelope, action: PLAYBOOK[verdict] };
}
