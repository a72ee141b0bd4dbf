/**
 * The playbook's circuit breakers (SPEC 18), one object shared by every dispatch of a
 * dispatcher (every call of a waves fixture, every record of a replay, in order): which
 * breakers guard a tool, whether an attempt to it may be sent, and what its answer does to
 * them. Each breaker keeps one circuit (`per: breaker`) or one per tool (`per: tool`).
 */
import type { AdapterError } from "../../model/fixture.js";
import type { BreakerState } from "../../model/fixture.js";
import type { UnstampedEvent } from "../../model/outcome.js";
import type { CircuitBreakerPolicy } from "../../model/playbook.js";
import { globMatches } from "../match.js";
import { BREAKER_DEFAULTS, Circuit, type CircuitAdmission, type CircuitFleet, type CircuitOutcome, type CircuitTransition } from "./circuit.js";
import { ATTEMPT_TIMEOUT } from "./attempt-timeout.js";

/** A failed attempt as a breaker's `counts` sees it. */
export interface CountedFailure {
  /** The verdict's class, or undefined when the code is not in the registry. */
  readonly verdictClass: string | undefined;
  readonly retryable: boolean;
  readonly errorKind: string | undefined;
  /** The verdict is `evidence: process` (SPEC 23): about this process, not the upstream. */
  readonly processEvidence?: boolean;
}

/** Links a `scope: fleet` breaker's circuit to the fleet's sync (engine/fleet/breakers.ts); `id` names it in the store. */
export type FleetLinker = (id: string, circuit: Circuit, policy: CircuitBreakerPolicy) => CircuitFleet;

/** The error of an attempt a breaker did not let through. */
export const circuitOpenError = (breaker: string) => ({ kind: "circuit_open", message: `circuit ${breaker} is open`, side_effect_state: "none" as const });

interface Breaker {
  readonly name: string;
  readonly policy: CircuitBreakerPolicy;
  readonly globs: readonly string[];
  /** `per: breaker`: the one circuit; `per: tool`: made per tool as tools appear. */
  readonly circuit: Circuit | undefined;
  readonly circuits: Map<string, Circuit>;
  readonly start: BreakerState;
}

interface Guard {
  readonly breaker: Breaker;
  readonly circuit: Circuit;
}

/** What the breakers said to one attempt: let through (with each guard's admission), or stopped by one. */
export interface Admission {
  readonly blockedBy: string | undefined;
  /** What a blocked attempt fails as, when not `circuit_open` (a rate limit's `rate_limited`, SPEC 22). */
  readonly error?: AdapterError;
  readonly guards: readonly Guard[];
  readonly admitted: readonly CircuitAdmission[];
}

/** A tool no breaker guards: nothing to record. */
const UNGUARDED: Admission = Object.freeze({ blockedBy: undefined, guards: [], admitted: [] });

export class CircuitBreakers {
  private readonly breakers: Breaker[] = [];
  private readonly guardsByTool = new Map<string, Guard[]>();
  /** The admission of an attempt every guard let through closed, one per guard list: the common case allocates nothing. */
  private readonly allClosed = new WeakMap<readonly Guard[], Admission>();
  private fleetLinker: FleetLinker | undefined;
  private processEvidence = false;

  constructor(
    policies: Readonly<Record<string, CircuitBreakerPolicy>>,
    private readonly origin: number,
    start: Readonly<Record<string, BreakerState>> = {},
  ) {
    for (const name of Object.keys(policies)) {
      const policy = policies[name];
      const state = Object.hasOwn(start, name) ? start[name] : "closed";
      this.breakers.push({
        name,
        policy,
        globs: typeof policy.tools === "string" ? [policy.tools] : policy.tools,
        circuit: policy.per === "tool" ? undefined : new Circuit(policy, origin, state),
        circuits: new Map(),
        start: state,
      });
    }
  }

  /**
   * Link every `scope: fleet` breaker's circuits to the fleet (SPEC 23), those a `per: tool`
   * breaker makes later included. Returns whether any breaker is the fleet's.
   */
  linkFleet(linker: FleetLinker, processEvidence: boolean): boolean {
    this.fleetLinker = linker;
    this.processEvidence = processEvidence;
    let any = false;
    for (const b of this.breakers) {
      if (b.policy.scope !== "fleet") continue;
      any = true;
      if (b.circuit !== undefined) this.link(b, b.name, b.circuit);
      else for (const [tool, circuit] of b.circuits) this.link(b, `${b.name}/${tool}`, circuit);
    }
    return any;
  }

  private link(breaker: Breaker, id: string, circuit: Circuit): void {
    circuit.linkFleet(this.fleetLinker!(id, circuit, breaker.policy), this.origin, this.processEvidence);
  }

  /** A breaker's state at `now`, for a tool when it keeps one per tool (a closed one when that tool has none yet). */
  stateOf(name: string, now: number, tool?: string): BreakerState | undefined {
    const breaker = this.breakers.find((b) => b.name === name);
    if (breaker === undefined) return undefined;
    const circuit = breaker.circuit ?? (tool === undefined ? undefined : breaker.circuits.get(tool));
    return circuit === undefined ? breaker.start : circuit.stateAt(now);
  }

  /** Every circuit's state at `now` (snapshots, SPEC 24): a `per: tool` breaker's, one per tool seen so far. Changes nothing. */
  viewAt(now: number): { breaker: string; tool: string | undefined; state: BreakerState; since: number; breakMs: number; longestBreakMs: number }[] {
    const views = [];
    for (const b of this.breakers) {
      const longestBreakMs = b.policy.max_break_ms ?? b.policy.break_ms ?? BREAKER_DEFAULTS.break_ms;
      if (b.circuit !== undefined) views.push({ breaker: b.name, tool: undefined, ...b.circuit.viewAt(now), longestBreakMs });
      else for (const [tool, circuit] of b.circuits) views.push({ breaker: b.name, tool, ...circuit.viewAt(now), longestBreakMs });
    }
    return views;
  }

  /**
   * May an attempt to `tool` be sent now? Every breaker guarding it must let it through; a
   * half-open one takes a probe only when all of them do. `shownTool` names the tool in events.
   */
  admit(tool: string, shownTool: string, now: number, emit: (event: UnstampedEvent) => void): Admission {
    const guards = this.guardsOf(tool);
    if (guards.length === 0) return UNGUARDED;
    let admitted: CircuitAdmission[] | undefined;
    for (let i = 0; i < guards.length; i++) {
      const guard = guards[i];
      const said = guard.circuit.admit(now, (t) => emit(eventOf(t, guard.breaker, shownTool)));
      if (said === "rejected") return { blockedBy: guard.breaker.name, guards: [], admitted: [] };
      if (said !== "closed") (admitted ??= guards.map(() => "closed" as const))[i] = said;
    }
    if (admitted === undefined) return this.allClosedOf(guards);
    for (let i = 0; i < guards.length; i++) if (admitted[i] === "probe") guards[i].circuit.takeProbe();
    return { blockedBy: undefined, guards, admitted };
  }

  /** Would `admit` refuse an attempt to `tool` now (some breaker guarding it open)? Changes nothing, emits nothing. */
  refuses(tool: string, now: number): boolean {
    const guards = this.guardsOf(tool);
    for (let i = 0; i < guards.length; i++) if (guards[i].circuit.refuses(now)) return true;
    return false;
  }

  /**
   * What `admit` would say to an attempt to `tool` now when every breaker guarding it is
   * closed (or none guards it): then admitting moves no breaker and emits nothing, so a
   * dispatch may take this admission before it has an event stream. Undefined otherwise.
   */
  closedAdmission(tool: string): Admission | undefined {
    const guards = this.guardsOf(tool);
    if (guards.length === 0) return UNGUARDED;
    for (let i = 0; i < guards.length; i++) if (!guards[i].circuit.closed) return undefined;
    return this.allClosedOf(guards);
  }

  private allClosedOf(guards: readonly Guard[]): Admission {
    let closed = this.allClosed.get(guards);
    if (closed === undefined) this.allClosed.set(guards, (closed = { blockedBy: undefined, guards, admitted: guards.map(() => "closed" as const) }));
    return closed;
  }

  /** The attempt answered: a success (`failure` null) or a failure, which each breaker counts or not. */
  record(admission: Admission, shownTool: string, now: number, failure: CountedFailure | null, emit: (event: UnstampedEvent) => void): void {
    for (let i = 0; i < admission.guards.length; i++) {
      const { breaker, circuit } = admission.guards[i];
      circuit.record(now, admission.admitted[i], outcomeFor(breaker.policy, failure), (t) => emit(eventOf(t, breaker, shownTool)));
    }
  }

  /** The attempt never answered (its function threw): give back any probe it held. */
  abandon(admission: Admission, now: number): void {
    for (let i = 0; i < admission.guards.length; i++) admission.guards[i].circuit.record(now, admission.admitted[i], "ignored", () => {});
  }

  private guardsOf(tool: string): Guard[] {
    let guards = this.guardsByTool.get(tool);
    if (guards !== undefined) return guards;
    guards = [];
    for (const breaker of this.breakers) {
      if (!breaker.globs.some((glob) => globMatches(glob, tool))) continue;
      guards.push({ breaker, circuit: breaker.circuit ?? this.circuitOf(breaker, tool) });
    }
    // The circuits live in the breakers: forgetting which guard a tool costs a lookup, never a state.
    if (this.guardsByTool.size >= 4096) this.guardsByTool.clear();
    this.guardsByTool.set(tool, guards);
    return guards;
  }

  private circuitOf(breaker: Breaker, tool: string): Circuit {
    let circuit = breaker.circuits.get(tool);
    if (circuit === undefined) {
      circuit = new Circuit(breaker.policy, this.origin, breaker.start);
      breaker.circuits.set(tool, circuit);
      if (breaker.policy.scope === "fleet" && this.fleetLinker !== undefined) this.link(breaker, `${breaker.name}/${tool}`, circuit);
    }
    return circuit;
  }
}

/**
 * Does a breaker count this answer? A success always; a failure whose class is in `counts`,
 * or by default one whose verdict is retryable or that is an attempt timeout.
 */
export function outcomeFor(policy: CircuitBreakerPolicy, failure: CountedFailure | null): CircuitOutcome {
  if (failure === null) return "success";
  const counted = policy.counts !== undefined ? failure.verdictClass !== undefined && policy.counts.includes(failure.verdictClass) : failure.retryable || failure.errorKind === ATTEMPT_TIMEOUT.kind;
  return !counted ? "ignored" : failure.processEvidence === true ? "process_failure" : "failure";
}

function eventOf(t: CircuitTransition, breaker: Breaker, shownTool: string): UnstampedEvent {
  const which = breaker.policy.per === "tool" ? { breaker: breaker.name, tool: shownTool } : { breaker: breaker.name };
  switch (t.type) {
    case "opened":
      return { type: "breaker_opened", ...which, failures: t.failures, attempts: t.attempts, break_ms: t.breakMs };
    case "half_open":
      return { type: "breaker_half_open", ...which };
    case "closed":
      return { type: "breaker_closed", ...which };
  }
}
