/**
 * The policies of SPEC 18 and 22 that a dispatcher holds for all its dispatches, beside the retry
 * quota: attempt timeouts, circuit breakers, the retry budget, retry throttling, hedging and rate limits. Each
 * lives in its own module; the run loop (engine/run.ts) only sequences them.
 */
import type { PolicyState } from "../../model/fixture.js";
import type { Playbook } from "../../model/playbook.js";
import { AttemptTimeouts } from "./attempt-timeout.js";
import { CircuitBreakers } from "./breakers.js";
import { Hedging } from "./hedging.js";
import { RateLimits } from "./rate-limits.js";
import { RetryBudget } from "./retry-budget.js";
import { RetryThrottle } from "./retry-throttling.js";

export interface SharedPolicies {
  readonly timeouts: AttemptTimeouts | undefined;
  readonly breakers: CircuitBreakers | undefined;
  readonly budget: RetryBudget | undefined;
  readonly throttle: RetryThrottle | undefined;
  readonly hedging: Hedging | undefined;
  readonly rateLimits: RateLimits | undefined;
}

/** The playbook's shared policies, starting now (`origin`, on the dispatcher's clock `now`) in `state` (a fixture's `state:`). */
export function createPolicies(playbook: Playbook, origin: number, state: PolicyState = {}, now: () => number = () => origin): SharedPolicies {
  return {
    timeouts: AttemptTimeouts.of(playbook),
    breakers: playbook.circuit_breakers === undefined ? undefined : new CircuitBreakers(playbook.circuit_breakers, origin, state.breakers),
    budget: playbook.retry_budget === undefined ? undefined : new RetryBudget(playbook.retry_budget),
    throttle: playbook.retry_throttling === undefined ? undefined : new RetryThrottle(playbook.retry_throttling, state.throttling?.tokens),
    hedging: Hedging.of(playbook),
    rateLimits: playbook.rate_limits === undefined ? undefined : new RateLimits(playbook.rate_limits, origin, () => now() / 1000),
  };
}
