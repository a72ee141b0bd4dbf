/**
 * fallback (SPEC 4 step 5): the call again, on another tool, sharing budgets and the clock.
 * A fallback that succeeds makes the dispatch `recovered`; one inside a fallback fails.
 */
import type { FallbackTool } from "../../model/playbook.js";
import { endOf, type CallTurn, type End, type RunContext } from "../call.js";

export async function fallback(run: RunContext, turn: CallTurn, action: FallbackTool): Promise<End> {
  if (turn.depth > 0) return endOf(turn, "failed", { reason: "fallback_chain" });
  run.emit({ type: "fallback_started", tool: run.redact(action.tool), from: turn.shown.tool });
  const sub = await run.callAgain({ ...turn.call, tool: action.tool }, turn.depth + 1);
  return sub.kind === "succeeded" ? { ...sub, kind: "recovered" } : sub;
}
