/**
 * A fleet store in memory (SPEC 23) with the sync script's semantics (redis/script.ts), for
 * storms and tests: the same report in gives the same totals out, on the store's own clock.
 * A differential test against a real redis-server holds the two together. It is built as the
 * script is, one function per section of the report (processes, budget, token counts, rate
 * leases, breakers), each over its own key, each key with its TTL; the values it stores are rounded as
 * Lua's `tostring` rounds them (14 significant digits), so they read back the same.
 *
 * One assumption the script does not need: the store's clock never goes back (the syncs are
 * queued in their order, so the processes whose lease ended are found at the queue's front).
 */
import type { FleetBreakerReport, FleetBreakerTotals, FleetRateReport, FleetReply, FleetReport, FleetStore, FleetTokenReport, FleetTotals } from "./store.js";

/** A key with a TTL: Redis drops it once its time has passed (an expired key reads as absent). */
class Key {
  expiresAt = Number.POSITIVE_INFINITY;

  /** Whether the key outlived its TTL at `now`: the caller clears it. */
  hasExpired(now: number): boolean {
    return now > this.expiresAt;
  }

  expire(now: number, ttl: number): void {
    this.expiresAt = now + ttl;
  }
}

/**
 * What the store keeps of one process under its instance's name: its score in the set of
 * processes, and its field in each token count's hash. The script keeps these in separate
 * keys; here they are one record, found by one lookup a sync, each token field valid while its
 * key is the generation it was written in (a key that expired or was cleared drops them all).
 */
class Member {
  /** Its last sync (store ms) while it is in the set of processes; undefined when it is not. */
  last: number | undefined = undefined;
  /** Its last reported sum of changes to each token count, and the generation of the key it was written in. */
  throttlingNet = 0;
  throttlingGen = -1;
  quotaNet = 0;
  quotaGen = -1;

  constructor(readonly id: string) {}
}

/** The processes (a sorted set: instance -> last sync, store ms), and every sync in order: the set's order by score. */
class Processes extends Key {
  /** Every process the store holds anything of, by instance. */
  readonly members = new Map<string, Member>();
  /** Processes in the set. */
  size = 0;
  /** The syncs not yet past the horizon, oldest first, from `head`: a member and its time then (stale when it synced since). */
  private queue: Member[] = [];
  private times: number[] = [];
  private head = 0;

  member(id: string): Member {
    let m = this.members.get(id);
    if (m === undefined) this.members.set(id, (m = new Member(id)));
    return m;
  }

  has(id: string): boolean {
    return this.members.get(id)?.last !== undefined;
  }

  joined(m: Member, now: number): void {
    if (m.last === undefined) this.size++;
    m.last = now;
    this.queue.push(m);
    this.times.push(now);
  }

  /** Take a process out of the set; whether it was in it. */
  left(m: Member): boolean {
    if (m.last === undefined) return false;
    m.last = undefined;
    this.size--;
    return true;
  }

  /** The next process whose last sync is before `horizon`, taken out of the queue (the caller takes it out of the set); undefined when there is none. */
  dropBefore(horizon: number): Member | undefined {
    while (this.head < this.queue.length && this.times[this.head]! < horizon) {
      const m = this.queue[this.head]!;
      const at = this.times[this.head]!;
      this.head++;
      if (m.last === at) return m;
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return undefined;
  }

  /** The processes in the set. */
  *inSet(): Generator<Member> {
    for (const m of this.members.values()) if (m.last !== undefined) yield m;
  }

  /** The set expired: its queue goes (the caller took each member out of the set). */
  clear(): void {
    this.queue = [];
    this.times = [];
    this.head = 0;
    this.expiresAt = Number.POSITIVE_INFINITY;
  }
}

/** The retry budget (a hash: instance -> calls and retries in progress), with its sums over the live processes. */
class BudgetKey extends Key {
  readonly entries = new Map<string, { calls: number; retries: number }>();
  calls = 0;
  retries = 0;
  /** Entries the script's pattern refuses (a negative count): ignored and never summed. */
  malformed = 0;
}

/** A fleet token count (a hash: the count, and each process's last reported sum of changes, kept in its Member). */
class TokenKey extends Key {
  tokens: number | undefined;
  /** Bumped when the hash goes: every member's field written before is gone with it. */
  gen = 0;

  constructor(private readonly kind: "throttling" | "quota") {
    super();
  }

  /** A process's field, undefined when it has none. */
  net(m: Member): number | undefined {
    return this.kind === "throttling" ? (m.throttlingGen === this.gen ? m.throttlingNet : undefined) : m.quotaGen === this.gen ? m.quotaNet : undefined;
  }

  setNet(m: Member, net: number): void {
    if (this.kind === "throttling") {
      m.throttlingNet = net;
      m.throttlingGen = this.gen;
    } else {
      m.quotaNet = net;
      m.quotaGen = this.gen;
    }
  }

  deleteNet(m: Member): void {
    if (this.kind === "throttling") m.throttlingGen = -1;
    else m.quotaGen = -1;
  }

  /** Whether the process has a field here. */
  holds(m: Member): boolean {
    return this.net(m) !== undefined;
  }
}

/** A fleet rate limit's bucket (a hash: its tokens, when it was last refilled, each process's lease and spent). */
class RateKey extends Key {
  tokens: number | undefined;
  at: number | undefined;
  readonly held = new Map<string, { grant: number; spent: number }>();
}

/** A fleet breaker (a hash: its state, window epoch, transitions, when it opened and its break; each process's counts). */
class BreakerKey extends Key {
  state: "closed" | "open" | undefined;
  epoch = 0;
  gen = 0;
  opened = 0;
  breakMs = 0;
  readonly counts = new Map<string, { attempts: number; failures: number }>();
}

/** A half-open probe's lease (a string set NX PX: the instance holding it). */
class ProbeKey extends Key {
  holder: string | undefined;
}

/** One script run's context. */
interface Run {
  now: number;
  ttl: number;
  id: string;
  /** The process's record (made for this sync if the store held nothing of it). */
  member: Member;
  leaving: boolean;
  ignored: number;
}

/** The fleet's state, as the script keeps it in Redis; `sync` is one run of the script. */
export class MemoryFleetState {
  private readonly processes = new Processes();
  private readonly budgetKey = new BudgetKey();
  private readonly tokenKeys = { throttling: new TokenKey("throttling"), quota: new TokenKey("quota") };
  private readonly rateKeys = new Map<string, RateKey>();
  private readonly breakerKeys = new Map<string, BreakerKey>();
  private readonly probeKeys = new Map<string, ProbeKey>();

  /** `now` is the store's clock, in ms (Redis `TIME`'s stand-in). */
  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Take a report in and answer the fleet's totals, as one run of the sync script would at `now`. */
  sync(report: FleetReport, now: number = this.now()): FleetTotals & { ignored: number } {
    const asked = Number(report.lease_ms);
    const lease = asked >= 1 ? asked : 1000;
    const id = typeof report.instance === "string" ? report.instance : String(report.instance);
    const run: Run = { now, ttl: Math.floor(lease * 2), id, member: this.processes.member(id), leaving: report.leave === true, ignored: 0 };
    const rates = Array.isArray(report.rates) ? report.rates : NONE;
    const breakers = Array.isArray(report.breakers) ? report.breakers : NONE;
    this.processesSection(run, lease, rates, breakers);
    const out: FleetTotals & { ignored: number } = { now_ms: now, instances: this.processes.size, ignored: 0 };
    if (isObject(report.budget)) out.budget = this.budgetSection(run, report.budget);
    const throttling = report.throttling === undefined ? undefined : this.tokensSection(run, this.tokenKeys.throttling, report.throttling);
    if (throttling !== undefined) out.throttling = throttling;
    const quota = report.quota === undefined ? undefined : this.tokensSection(run, this.tokenKeys.quota, report.quota);
    if (quota !== undefined) out.quota = quota;
    if (rates.length > 0) out.rates = rates.map((r) => this.rateSection(run, r) ?? { name: String(r?.name), grant: -1, tokens: 0 });
    // The script answers a report it cannot read with a state no process takes in.
    if (breakers.length > 0) out.breakers = breakers.map((b) => this.breakerSection(run, lease, b) ?? ({ name: String(b?.name), state: "invalid" } as unknown as FleetBreakerTotals));
    out.ignored = run.ignored;
    this.release(run.member);
    return out;
  }

  /** This process joins (or leaves); the processes whose lease ended drop out, with their counts (a lease held stays taken). */
  private processesSection(run: Run, lease: number, rates: readonly FleetRateReport[], breakers: readonly FleetBreakerReport[]): void {
    const p = this.processes;
    if (p.hasExpired(run.now)) {
      for (const m of [...p.inSet()]) {
        this.forget(m);
        if (m !== run.member) this.release(m);
      }
      p.clear();
    }
    if (this.budgetKey.hasExpired(run.now)) clearBudget(this.budgetKey);
    if (run.leaving) this.forget(run.member);
    else {
      if (run.member.last === undefined) this.count(run.id, 1);
      p.joined(run.member, run.now);
    }
    for (let m = p.dropBefore(run.now - lease); m !== undefined; m = p.dropBefore(run.now - lease)) this.dropProcess(run, m, rates, breakers);
    p.expire(run.now, run.ttl);
  }

  /** A process whose lease ended leaves the set, with its counts in each key this report names (a lease held stays taken). */
  private dropProcess(run: Run, m: Member, rates: readonly FleetRateReport[], breakers: readonly FleetBreakerReport[]): void {
    const id = m.id;
    this.forget(m);
    this.dropEntry(id);
    for (const key of [this.tokenKeys.throttling, this.tokenKeys.quota]) if (!key.hasExpired(run.now)) key.deleteNet(m);
    for (const r of rates) {
      const key = this.rateKeys.get(String(r?.name));
      if (key !== undefined && !key.hasExpired(run.now)) key.held.delete(id);
    }
    for (const b of breakers) {
      const key = this.breakerKeys.get(String(b?.name));
      if (key !== undefined && !key.hasExpired(run.now)) key.counts.delete(id);
    }
    if (m !== run.member) this.release(m);
  }

  /** A record that holds nothing any more is let go (the store keeps no field of that process). */
  private release(m: Member): void {
    if (m.last === undefined && !this.tokenKeys.throttling.holds(m) && !this.tokenKeys.quota.holds(m) && this.processes.members.get(m.id) === m) this.processes.members.delete(m.id);
  }

  /** Drop a process from the set, and its budget entry from the sums (the entry itself stays, as in the hash). */
  private forget(m: Member): void {
    if (this.processes.left(m)) this.count(m.id, -1);
  }

  /** Add (or take away) a process's budget entry to the sums over the live processes. */
  private count(id: string, sign: 1 | -1): void {
    const entry = this.budgetKey.entries.get(id);
    if (entry === undefined || entry.calls < 0 || entry.retries < 0) return;
    this.budgetKey.calls += sign * entry.calls;
    this.budgetKey.retries += sign * entry.retries;
  }

  /** Delete a process's budget entry (its part of the sums is the caller's to take away). */
  private dropEntry(id: string): void {
    const old = this.budgetKey.entries.get(id);
    if (old === undefined) return;
    if (old.calls < 0 || old.retries < 0) this.budgetKey.malformed--;
    this.budgetKey.entries.delete(id);
  }

  /** The retry budget: this process's calls and retries in progress, summed over the live processes. */
  private budgetSection(run: Run, budget: { calls?: unknown; retries?: unknown }): { calls: number; retries: number } {
    const key = this.budgetKey;
    const live = run.member.last !== undefined;
    if (live) this.count(run.id, -1);
    this.dropEntry(run.id);
    if (!run.leaving) {
      // The script stores string.format('%d:%d'): a count truncated to an integer, or 0 when it is not a number.
      const entry = { calls: Math.trunc(luaNumber(budget.calls) ?? 0), retries: Math.trunc(luaNumber(budget.retries) ?? 0) };
      key.entries.set(run.id, entry);
      if (entry.calls < 0 || entry.retries < 0) key.malformed++;
      else if (live) this.count(run.id, 1);
    }
    run.ignored += key.malformed;
    key.expire(run.now, run.ttl);
    return { calls: key.calls, retries: key.retries };
  }

  /**
   * One fleet token count: what is new in this process's sum of changes since its last report
   * is applied (a repeated report applies nothing), the count kept within [0, max]. A process
   * the store does not know yet starts from its sum now.
   */
  private tokensSection(run: Run, key: TokenKey, r: FleetTokenReport | undefined): { tokens: number } | undefined {
    if (!isObject(r)) return undefined;
    const net = luaNumber(r.net);
    const max = luaNumber(r.max);
    if (net === undefined || max === undefined || max <= 0) return undefined;
    if (key.hasExpired(run.now)) clearTokens(key);
    let count: number;
    if (key.tokens === undefined) {
      clearTokens(key);
      count = max;
    } else {
      const last = key.net(run.member);
      count = last === undefined ? key.tokens : Math.min(max, Math.max(0, key.tokens + net - last));
    }
    if (run.leaving) key.deleteNet(run.member);
    else key.setNet(run.member, lua14(net));
    key.tokens = lua14(count);
    key.expire(run.now, run.ttl);
    return { tokens: lua14(count) };
  }

  /**
   * A rate limit shared by leases: the fleet's bucket refills by the store's clock; what the
   * process spent since its last report is charged against the lease it held and the rest
   * taken back; then it is leased up to what it wants.
   */
  private rateSection(run: Run, r: FleetRateReport): { name: string; grant: number; tokens: number } | undefined {
    if (!isObject(r)) return undefined;
    const [spent, want, cap, requests, per] = [r.spent, r.want, r.capacity, r.requests, r.per_ms].map(luaNumber);
    if (spent === undefined || want === undefined || cap === undefined || requests === undefined || per === undefined || cap <= 0 || requests <= 0 || per <= 0) return undefined;
    const name = String(r.name);
    let key = this.rateKeys.get(name);
    if (key === undefined) this.rateKeys.set(name, (key = new RateKey()));
    if (key.hasExpired(run.now)) clearRate(key);
    let tokens: number;
    let at: number;
    if (key.tokens === undefined || key.at === undefined) {
      clearRate(key);
      [tokens, at] = [cap, run.now];
    } else [tokens, at] = [key.tokens, key.at];
    if (run.now > at) tokens = Math.min(cap, tokens + ((run.now - at) * requests) / per);
    const held = key.held.get(run.id);
    if (held !== undefined) tokens = Math.min(cap, tokens + held.grant - (spent - held.spent));
    let grant = 0;
    if (run.leaving) key.held.delete(run.id);
    else {
      grant = Math.max(0, Math.min(Math.floor(tokens), want));
      tokens -= grant;
      key.held.set(run.id, { grant: lua14(grant), spent: lua14(spent) });
    }
    key.tokens = lua14(tokens);
    key.at = run.now;
    key.expire(run.now, Math.max(run.ttl, Math.ceil(per * 2)));
    return { name, grant, tokens: lua14(tokens) };
  }


  /**
   * A fleet breaker: the processes' windows of the current epoch summed; closed, it opens for
   * all when the sum crosses the threshold and the quorum; half-open, one process wins the
   * probe's lease, and its result closes it (a new epoch) or opens it again (the break doubled
   * up to max_break_ms).
   */
  private breakerSection(run: Run, lease: number, r: FleetBreakerReport): FleetBreakerTotals | undefined {
    if (!isObject(r)) return undefined;
    const [attempts, failures, epochSent, ratio, minimum, quorum, breakMs] = [r.attempts, r.failures, r.epoch, r.ratio, r.minimum, r.quorum, r.break_ms].map(luaNumber);
    const maxBreak = luaNumber(r.max_break_ms);
    if (attempts === undefined || failures === undefined || epochSent === undefined || ratio === undefined || minimum === undefined || quorum === undefined || breakMs === undefined || attempts < 0 || failures < 0 || breakMs <= 0) return undefined;
    const name = String(r.name);
    let key = this.breakerKeys.get(name);
    if (key === undefined) this.breakerKeys.set(name, (key = new BreakerKey()));
    if (key.hasExpired(run.now)) clearBreaker(key);
    if (key.state === undefined) {
      clearBreaker(key);
      [key.state, key.epoch, key.gen, key.opened, key.breakMs] = ["closed", 0, 0, 0, breakMs];
    }
    if (run.leaving) key.counts.delete(run.id);
    else if (epochSent === key.epoch) key.counts.set(run.id, { attempts: Math.trunc(attempts), failures: Math.trunc(failures) });
    else key.counts.set(run.id, { attempts: 0, failures: 0 });
    let [sumA, sumF, processes, crossing] = [0, 0, 0, 0];
    for (const [id, c] of key.counts) {
      if (!this.processes.has(id)) continue;
      sumA += c.attempts;
      sumF += c.failures;
      if (c.attempts > 0) {
        processes++;
        if (c.failures > 0 && c.failures >= ratio * c.attempts) crossing++;
      }
    }
    let probeKey = this.probeKeys.get(name);
    if (probeKey === undefined) this.probeKeys.set(name, (probeKey = new ProbeKey()));
    if (probeKey.hasExpired(run.now)) probeKey.holder = undefined;
    let probe = false;
    if (key.state === "closed") {
      if (sumA >= minimum && sumF > 0 && sumF >= ratio * sumA && crossing >= quorum * processes) {
        [key.state, key.opened, key.gen, key.breakMs] = ["open", run.now, key.gen + 1, breakMs];
      }
    } else if (run.now >= key.opened + key.breakMs) {
      const holder = probeKey.holder;
      const mine = holder === undefined || holder === run.id;
      if (r.probe === "passed" && mine) {
        [key.state, key.epoch, key.gen, key.breakMs] = ["closed", key.epoch + 1, key.gen + 1, breakMs];
        probeKey.holder = undefined;
        key.counts.clear();
        [sumA, sumF, processes, crossing] = [0, 0, 0, 0];
      } else if (r.probe === "failed" && mine) {
        if (maxBreak !== undefined) key.breakMs = Math.min(maxBreak, key.breakMs * 2);
        [key.state, key.opened, key.gen] = ["open", run.now, key.gen + 1];
        probeKey.holder = undefined;
      } else if (r.probe === "want" && !run.leaving) {
        if (holder === undefined) {
          probeKey.holder = run.id;
          probeKey.expire(run.now, Math.floor(lease));
        }
        probe = holder === undefined || holder === run.id;
      }
    }
    key.expire(run.now, run.ttl + key.breakMs);
    const left = key.state === "open" ? Math.max(0, key.opened + key.breakMs - run.now) : 0;
    const state = key.state === "open" && left === 0 ? "half_open" : key.state;
    return { name, state, epoch: key.epoch, gen: key.gen, left_ms: left, break_ms: key.breakMs, probe, attempts: sumA, failures: sumF, processes, crossing };
  }
}

export interface MemoryFleetStoreOptions {
  /** The store's clock, in ms (default the wall clock): it dates syncs, leases and refills, as Redis `TIME` does. */
  now?: () => number;
  /**
   * How an answer travels back to the process (default: in a microtask): call `answerSync`
   * with both, once, when it arrives. A storm answers after the store's latency on its
   * virtual clock. An Error for an answer makes the sync fail.
   */
  respond?: (reply: FleetReply, answer: FleetTotals | Error) => void;
  /** Whether the store is unreachable at a time (store clock): a sync sent then is not taken in, and fails. */
  down?: (now: number) => boolean;
}

/** Hand an answer to the sync that waits for it: the totals, or the Error that fails it. */
export function answerSync(reply: FleetReply, answer: FleetTotals | Error): void {
  if (answer instanceof Error) reply.failed(answer);
  else reply.answered(answer);
}

/** A fleet store in memory with the sync script's semantics: for storms, and for tests of a fleet without Redis. */
export function memoryFleetStore(options: MemoryFleetStoreOptions = {}): FleetStore & { readonly state: MemoryFleetState } {
  const now = options.now ?? (() => Date.now());
  const state = new MemoryFleetState(now);
  const respond = options.respond ?? ((reply, answer) => queueMicrotask(() => answerSync(reply, answer)));
  const send = (report: FleetReport, reply: FleetReply): void => {
    const at = now();
    // The store takes the report in as it is sent (unless it is unreachable then); its answer arrives as `respond` says.
    respond(reply, options.down?.(at) === true ? new Error("the fleet store is unreachable") : state.sync(report, at));
  };
  return {
    state,
    send,
    sync: (report) => new Promise<FleetTotals>((answered, failed) => send(report, { answered, failed })),
    time: () => Promise.resolve(now()),
  };
}

function clearBudget(key: BudgetKey): void {
  key.entries.clear();
  key.calls = key.retries = key.malformed = 0;
  key.expiresAt = Number.POSITIVE_INFINITY;
}

function clearTokens(key: TokenKey): void {
  key.tokens = undefined;
  key.gen++;
  key.expiresAt = Number.POSITIVE_INFINITY;
}

function clearBreaker(key: BreakerKey): void {
  key.state = undefined;
  key.counts.clear();
  key.expiresAt = Number.POSITIVE_INFINITY;
}

function clearRate(key: RateKey): void {
  key.tokens = key.at = undefined;
  key.held.clear();
  key.expiresAt = Number.POSITIVE_INFINITY;
}

const NONE: readonly never[] = [];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Lua's `tonumber` of a decoded JSON value: a number, or a numeric string. */
function luaNumber(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** A number as Lua's `tostring` (and cjson) writes it and reads back: 14 significant digits. */
const lua14 = (n: number): number => (Number.isInteger(n) && Math.abs(n) < 1e14 ? n : Number(n.toPrecision(14)));
