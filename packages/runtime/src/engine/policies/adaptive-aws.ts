/**
 * `adaptive: aws` (SPEC 22): the AWS SDK's adaptive retry mode, exactly
 * (`@smithy/util-retry`'s DefaultRateLimiter): a client-side token bucket, off until the
 * first throttling response, whose fill rate follows CUBIC (beta 0.7, scale 0.4), from a
 * sending rate measured in half-second buckets and smoothed (0.8), never below 0.5 a second,
 * capacity never below 1. Time is the dispatcher's clock read as seconds: the differential
 * test drives this and the SDK's own class on one controlled clock and holds every token
 * wait and fill rate equal.
 */

/** The SDK's constants (DefaultRateLimiter's defaults). */
const BETA = 0.7;
const MIN_CAPACITY = 1;
const MIN_FILL_RATE = 0.5;
const SCALE_CONSTANT = 0.4;
const SMOOTH = 0.8;

/** The SDK rounds every computed rate to 8 decimals (`getPrecise`). */
const precise = (n: number): number => parseFloat(n.toFixed(8));

export class AwsAdaptiveLimiter {
  private enabled = false;
  private availableTokens = 0;
  private lastMaxRate = 0;
  private measuredTxRate = 0;
  private requestCount = 0;
  fillRate = MIN_FILL_RATE;
  private lastThrottleTime: number;
  private lastTimestamp = 0;
  private lastTxRateBucket: number;
  maxCapacity = MIN_CAPACITY;
  private timeWindow = 0;

  /** `seconds`: the dispatcher's clock in seconds (the SDK reads Date.now() / 1000). */
  constructor(private readonly seconds: () => number) {
    this.lastThrottleTime = seconds();
    this.lastTxRateBucket = Math.floor(seconds());
  }

  /** Whether the bucket is on (the first throttling response turns it on, for good). */
  get active(): boolean {
    return this.enabled;
  }

  /**
   * The wait before the next send, in ms, taking its token (the SDK's `getSendToken`): 0 while
   * the bucket is off or holds a token. `sleep` is called for each wait the SDK's loop makes
   * (a wait under 1 ms must sleep 1 ms, as the SDK's setTimeout does, or the loop spins); the
   * token is taken after the last.
   */
  async acquire(sleep: (ms: number) => Promise<void>): Promise<number> {
    if (!this.enabled) return 0;
    this.refill();
    let waited = 0;
    while (1 > this.availableTokens) {
      const delay = ((1 - this.availableTokens) / this.fillRate) * 1000;
      waited += delay;
      await sleep(delay);
      this.refill();
    }
    this.availableTokens -= 1;
    return waited;
  }

  /** The wait the SDK's loop would start with now, in ms (0 while off or holding a token): what max_wait_ms and a deadline are checked against. */
  nextWait(): number {
    if (!this.enabled) return 0;
    this.refill();
    return 1 > this.availableTokens ? ((1 - this.availableTokens) / this.fillRate) * 1000 : 0;
  }

  /** Take a token now if one is there (or the bucket is off): the dispatcher's path without a wait. */
  tryAcquire(): boolean {
    if (!this.enabled) return true;
    this.refill();
    if (1 > this.availableTokens) return false;
    this.availableTokens -= 1;
    return true;
  }

  /** A response came back (the SDK's `updateClientSendingRate`): `throttling` when it was throttled. */
  update(throttling: boolean): void {
    let calculatedRate: number;
    this.updateMeasuredRate();
    if (throttling) {
      const rateToUse = !this.enabled ? this.measuredTxRate : Math.min(this.measuredTxRate, this.fillRate);
      this.lastMaxRate = rateToUse;
      this.calculateTimeWindow();
      this.lastThrottleTime = this.seconds();
      calculatedRate = precise(rateToUse * BETA);
      this.enabled = true;
    } else {
      this.calculateTimeWindow();
      calculatedRate = precise(SCALE_CONSTANT * Math.pow(this.seconds() - this.lastThrottleTime - this.timeWindow, 3) + this.lastMaxRate);
    }
    const newRate = Math.min(calculatedRate, 2 * this.measuredTxRate);
    this.refill();
    this.fillRate = Math.max(newRate, MIN_FILL_RATE);
    this.maxCapacity = Math.max(newRate, MIN_CAPACITY);
    this.availableTokens = Math.min(this.availableTokens, this.maxCapacity);
  }

  /** Tokens in the bucket now (for snapshots and storms). */
  get tokens(): number {
    return this.availableTokens;
  }

  /** The tokens now, refilled to this moment as `refill` would, without refilling (snapshots, SPEC 24). */
  tokensNow(): number {
    if (!this.lastTimestamp) return this.availableTokens;
    return Math.min(this.maxCapacity, this.availableTokens + (this.seconds() - this.lastTimestamp) * this.fillRate);
  }

  private refill(): void {
    const timestamp = this.seconds();
    if (!this.lastTimestamp) {
      this.lastTimestamp = timestamp;
      return;
    }
    const fillAmount = (timestamp - this.lastTimestamp) * this.fillRate;
    this.availableTokens = Math.min(this.maxCapacity, this.availableTokens + fillAmount);
    this.lastTimestamp = timestamp;
  }

  private calculateTimeWindow(): void {
    this.timeWindow = precise(Math.pow((this.lastMaxRate * (1 - BETA)) / SCALE_CONSTANT, 1 / 3));
  }

  private updateMeasuredRate(): void {
    const t = this.seconds();
    const timeBucket = Math.floor(t * 2) / 2;
    this.requestCount++;
    if (timeBucket > this.lastTxRateBucket) {
      const currentRate = this.requestCount / (timeBucket - this.lastTxRateBucket);
      this.measuredTxRate = precise(currentRate * SMOOTH + this.measuredTxRate * (1 - SMOOTH));
      this.requestCount = 0;
      this.lastTxRateBucket = timeBucket;
    }
  }
}
