/**
 * The local stand-ins for API Gateway usage-plan throttling and the AWS WAF
 * rate-based rule (same status codes, headers and bodies as
 * deployed). Time is passed in (milliseconds, monotonic) so the rules are
 * tested without waiting.
 */
import type { ThrottleQuota } from '../service/identity/throttle-quota';

/**
 * API Gateway's algorithm for stage and usage-plan throttles: a bucket of
 * `burstLimit` tokens refilled at `rateLimit` per second; each request takes
 * one token or is throttled.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private quota: ThrottleQuota,
    now: number,
  ) {
    this.tokens = quota.burstLimit;
    this.updatedAt = now;
  }

  /** Applies a changed quota without refilling the bucket (a lower burst caps what is left). */
  reconfigure(quota: ThrottleQuota, now: number): void {
    this.refill(now);
    this.quota = quota;
    this.tokens = Math.min(this.tokens, quota.burstLimit);
  }

  tryTake(now: number): boolean {
    this.refill(now);
    // Refills add fractions (0.1 + 0.1 + … falls just short of 1): compare with a tolerance.
    if (this.tokens < 1 - 1e-9) return false;
    this.tokens -= 1;
    return true;
  }

  private refill(now: number): void {
    const elapsedSeconds = Math.max(0, now - this.updatedAt) / 1000;
    this.tokens = Math.min(this.quota.burstLimit, this.tokens + elapsedSeconds * this.quota.rateLimit);
    this.updatedAt = now;
  }
}

export type UsagePlanDecision = 'allowed' | 'throttled' | 'unknown-key';

export interface UsagePlanThrottleOptions {
  /** The usage-plan throttle of a key, or undefined when no plan holds it (API Gateway: 403 INVALID_API_KEY). */
  quotaOf: (usageIdentifier: string) => Promise<ThrottleQuota | undefined>;
  /**
   * How long a looked-up quota is reused. Quota changes reach API Gateway's
   * throttling after a delay too; caching keeps the check off the table on
   * most requests.
   */
  cacheMs?: number;
}

interface PlanEntry {
  bucket: TokenBucket | undefined;
  checkedAt: number;
}

/** One token bucket per usage-plan key, as API Gateway keeps per-client throttles. */
export class UsagePlanThrottle {
  private readonly entries = new Map<string, PlanEntry>();
  private readonly lookups = new Map<string, Promise<ThrottleQuota | undefined>>();
  private readonly cacheMs: number;

  constructor(private readonly options: UsagePlanThrottleOptions) {
    this.cacheMs = options.cacheMs ?? 1000;
  }

  async admit(usageIdentifier: string, now: number): Promise<UsagePlanDecision> {
    let entry = this.entries.get(usageIdentifier);
    if (!entry || now - entry.checkedAt >= this.cacheMs) entry = await this.refresh(usageIdentifier, entry, now);
    if (!entry.bucket) return 'unknown-key';
    return entry.bucket.tryTake(now) ? 'allowed' : 'throttled';
  }

  private async refresh(usageIdentifier: string, previous: PlanEntry | undefined, now: number): Promise<PlanEntry> {
    // Concurrent requests of one key share one lookup.
    let lookup = this.lookups.get(usageIdentifier);
    if (!lookup) {
      lookup = this.options.quotaOf(usageIdentifier).finally(() => this.lookups.delete(usageIdentifier));
      this.lookups.set(usageIdentifier, lookup);
    }
    const quota = await lookup;
    const current = this.entries.get(usageIdentifier) ?? previous;
    let bucket = current?.bucket;
    if (!quota) bucket = undefined;
    else if (bucket) bucket.reconfigure(quota, now);
    else bucket = new TokenBucket(quota, now);
    const entry = { bucket, checkedAt: now };
    this.entries.set(usageIdentifier, entry);
    return entry;
  }
}

/**
 * AWS WAF rate-based rule keyed by source IP: counts every matching request
 * of the trailing window (in one-second slots) and blocks while the count is
 * over the limit. Blocked requests count too, as WAF counts all requests the
 * rule inspects, so a client that keeps hammering stays blocked.
 */
export class ClientRateLimit {
  private readonly clients = new Map<string, { slots: Uint32Array; lastSecond: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  admit(clientIp: string, now: number): boolean {
    const second = Math.floor(now / 1000);
    let client = this.clients.get(clientIp);
    if (!client) {
      if (this.clients.size >= 10_000) this.forgetIdle(second);
      client = { slots: new Uint32Array(this.windowSeconds), lastSecond: second };
      this.clients.set(clientIp, client);
    }
    // Clear the slots of the seconds that passed since this client's last request.
    const passed = Math.min(this.windowSeconds, second - client.lastSecond);
    for (let step = 1; step <= passed; step += 1) client.slots[(client.lastSecond + step) % this.windowSeconds] = 0;
    client.lastSecond = Math.max(client.lastSecond, second);
    const slot = second % this.windowSeconds;
    client.slots[slot] = (client.slots[slot] ?? 0) + 1;
    let count = 0;
    for (const value of client.slots) count += value;
    return count <= this.limit;
  }

  private forgetIdle(second: number): void {
    for (const [ip, client] of this.clients)
      if (second - client.lastSecond >= this.windowSeconds) this.clients.delete(ip);
  }
}
