/**
 * refresh_evidence and restore_checkpoint (SPEC 4 step 5): rebuild what the call was made
 * from, then either abort (re-plan) or make one more attempt, whose failure ends the call.
 */
import type { RefreshEvidence, RestoreCheckpoint } from "../../model/playbook.js";
import { endOf, type CallTurn, type RunContext, type Step } from "../call.js";

export async function rebuild(run: RunContext, turn: CallTurn, action: RefreshEvidence | RestoreCheckpoint): Promise<Step> {
  const { call } = turn;
  if (action.action === "refresh_evidence") {
    run.emit({ type: "evidence_refreshed", evidence_refs: (call.evidence_refs ?? []).map(run.redact) });
    await run.effects?.refreshEvidence?.(call);
  } else {
    run.emit({ type: "checkpoint_restored" });
    await run.effects?.restoreCheckpoint?.(call);
  }
  if (action.then === "abort") return endOf(turn, "deprecated", { reason: `${action.action} then abort`, replan: true });
  turn.rebuilt = action;
  turn.hint = undefined;
  return "next_attempt";
}
