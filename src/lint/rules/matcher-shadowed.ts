import { ruleCovers } from "../../engine/match.js";
import { statusOf, type MatchRule } from "../../model/registry.js";
import type { LintRule } from "../rule.js";

interface Placed {
  /** Position in file order among all rules. */
  seq: number;
  verdict: number;
  index: number;
  code: string;
  rule: MatchRule;
}

/**
 * Rules are tried in file order and the first that holds wins, so a rule is dead when one
 * earlier rule holds for every error it holds for. Exact, not a heuristic: `ruleCovers` is
 * sound, so a finding is never a guess. Reserved verdicts never match and are skipped.
 */
export const matcherShadowed: LintRule = {
  id: "matcher-shadowed",
  severity: "error",
  description: "A match rule that can never win because an earlier rule always matches first.",
  check({ registry, report }) {
    const earlier = new EarlierRules();
    let seq = 0;
    for (const [vi, v] of registry.value.verdicts.entries()) {
      if (statusOf(v) === "reserved") continue;
      for (const [ri, rule] of (v.match ?? []).entries()) {
        const here: Placed = { seq: seq++, verdict: vi, index: ri, code: v.code, rule };
        const winner = earlier.firstCovering(rule);
        earlier.add(here);
        if (!winner) continue;
        report({
          message: winner.verdict === vi ? redundant(here, winner) : shadowed(here, winner),
          doc: registry.doc,
          path: ["verdicts", vi, "match", ri],
          related: [{ message: `rule #${winner.index + 1} of '${winner.code}', which matches first, is here`, position: registry.doc.locate(["verdicts", winner.verdict, "match", winner.index]) }],
        });
      }
    }
  },
};

/**
 * The rules seen so far, indexed by kind so that a registry of thousands of rules is not
 * compared pair by pair: a rule with a `kind` can only cover a rule whose kinds it all
 * lists, so it is a candidate only under the later rule's first kind.
 */
class EarlierRules {
  private readonly withoutKind: Placed[] = [];
  private readonly byKind = new Map<string, Placed[]>();

  add(p: Placed): void {
    const kinds = p.rule.kind === undefined ? undefined : [...new Set(Array.isArray(p.rule.kind) ? p.rule.kind : [p.rule.kind])];
    if (!kinds) {
      this.withoutKind.push(p);
      return;
    }
    for (const k of kinds) {
      const list = this.byKind.get(k);
      if (list) list.push(p);
      else this.byKind.set(k, [p]);
    }
  }

  /** The earliest rule that matches every error `rule` matches. */
  firstCovering(rule: MatchRule): Placed | undefined {
    const first = rule.kind === undefined ? undefined : Array.isArray(rule.kind) ? rule.kind[0] : rule.kind;
    const candidates = [this.withoutKind, first === undefined ? [] : (this.byKind.get(first) ?? [])];
    let best: Placed | undefined;
    for (const list of candidates) {
      const found = list.find((a) => ruleCovers(a.rule, rule));
      if (found && (!best || found.seq < best.seq)) best = found;
    }
    return best;
  }
}

const redundant = (here: Placed, winner: Placed) =>
  `match rule #${here.index + 1} of '${here.code}' is redundant: rule #${winner.index + 1} of the same verdict matches every error it matches; remove it, or narrow the earlier rule`;

const shadowed = (here: Placed, winner: Placed) =>
  `match rule #${here.index + 1} of '${here.code}' can never win: rule #${winner.index + 1} of '${winner.code}', earlier in the file, matches every error it matches and rules are tried in order; move '${here.code}' above '${winner.code}', narrow that rule, or remove this one`;
