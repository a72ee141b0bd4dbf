/**
 * issue_reversal (SPEC 4 step 5). The guard of seed 000: no token from the original call,
 * no reversal. Ever.
 */
import type { IssueReversal } from "../../model/playbook.js";
import { endOf, type CallTurn, type End, type RunContext } from "../call.js";
import { REDACTED } from "../secrets.js";

export async function reverse(run: RunContext, turn: CallTurn, action: IssueReversal): Promise<End> {
  const token = turn.call.reversal_token;
  if (token === undefined || token === "") {
    run.emit({ type: "reversal_refused", reason: "no reversal_token on the call" });
    return endOf(turn, "exhausted", { reason: "no_reversal_token", exhausted: true });
  }
  await run.effects?.issueReversal?.(turn.call, token, action.reason);
  // A token under a key that names a secret is one, as every output shows it (SPEC 16, 21).
  run.emit({ type: "reversal_issued", reversal_token: REDACTED, reason: run.redact(action.reason) });
  return endOf(turn, "reversed", { reason: run.redact(action.reason) });
}
