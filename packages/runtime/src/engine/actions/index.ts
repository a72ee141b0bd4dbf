/**
 * The closed set of actions (SPEC 3.1), one module each, the way cockatiel keeps one policy
 * a file. The run loop (engine/run.ts) hands every classified failure here.
 */
import type { CompensationAction } from "../../model/playbook.js";
import { endOf, type CallTurn, type Failure, type RunContext, type Step } from "../call.js";
import { fallback } from "./fallback.js";
import { rebuild } from "./rebuild.js";
import { retry } from "./retry.js";
import { reverse } from "./reversal.js";

export function runAction(run: RunContext, turn: CallTurn, failure: Failure, action: CompensationAction): Promise<Step> | Step {
  switch (action.action) {
    case "retry_with_backoff":
    case "retry_with_hint":
      return retry(run, turn, failure, action);
    case "refresh_evidence":
    case "restore_checkpoint":
    case "refresh_credentials":
      return rebuild(run, turn, action);
    case "issue_reversal":
      return reverse(run, turn, action);
    case "fallback":
      return fallback(run, turn, action);
    // The actions that only end the call.
    case "escalate_to_human":
      return endOf(turn, "escalated", { queue: run.redact(action.queue) });
    case "deprecate_tool_call":
      return endOf(turn, "deprecated", { reason: run.redact(action.reason), replan: action.replan });
    case "fail":
      return endOf(turn, "failed", { reason: action.message === undefined ? null : run.redact(action.message) });
    case "dead_letter":
      return endOf(turn, "dead_lettered", { queue: run.redact(action.queue) });
    default:
      return assertNever(action);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled action: ${JSON.stringify(value)}`);
}
