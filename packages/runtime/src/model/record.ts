/** Records: calls as production saw them, to replay against a playbook (SPEC section 14). */
import type { Call, Response } from "./fixture.js";
import type { OutcomeKind } from "./outcome.js";

/** One line of a `.jsonl` corpus (schemas/record.schema.json). */
export interface DispatchRecord {
  apiVersion: "failbook/v1";
  kind: "Record";
  /** The run the call belonged to (default ""): part of its idempotency key and its shard hash. */
  run_id?: string;
  /** When the dispatch started, ISO 8601 (a production clock only). */
  at?: string;
  call: Call;
  /** The attempts production made, in order. */
  responses: Response[];
  /** The attempts made against the fallback tool. */
  fallback_responses?: Response[];
  /** What production decided. */
  outcome?: RecordedOutcome;
}

export interface RecordedOutcome {
  kind: OutcomeKind;
  verdict?: string | null;
  attempts?: number;
  retried?: number;
  reason?: string | null;
}

/** Where a dispatch hands its record (the library's production sink, SPEC 14). */
export type RecordSink = (record: DispatchRecord) => void | Promise<void>;
