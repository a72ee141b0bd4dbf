/**
 * refresh_evidence, restore_checkpoint and refresh_credentials (SPEC 4 step 5, SPEC 18):
 * rebuild what the call was made from, then either abort (re-plan) or make one more
 * attempt, whose failure ends the call.
 */
import type { RefreshCredentials, RefreshEvidence, RestoreCheckpoint } from "../../model/playbook.js";
import { endOf, type CallTurn, type RunContext, type Step } from "../call.js";

export async function rebuild(run: RunContext, turn: CallTurn, action: RefreshEvidence | RestoreCheckpoint | RefreshCredentials): Promise<Step> {
  const { call } = turn;
  switch (action.action) {
    case "refresh_evidence":
      run.emit({ type: "evidence_refreshed", evidence_refs: (call.evidence_refs ?? []).map(run.redact) });
      await run.effects?.refreshEvidence?.(call);
      break;
    case "restore_checkpoint":
      run.emit({ type: "checkpoint_restored" });
      await run.effects?.restoreCheckpoint?.(call);
      break;
    case "refresh_credentials":
      run.emit({ type: "credentials_refreshed" });
      await run.effects?.refreshCredentials?.(call);
      break;
  }
  if (action.then === "abort") return endOf(turn, "deprecated", { reason: `${action.action} then abort`, replan: true });
  turn.rebuilt = action;
  turn.hint = undefined;
  return "next_attempt";
}
