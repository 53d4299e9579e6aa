/**
 * The local emulation of API Gateway usage-plan throttling (token bucket per
 * key) and of the WAF per-client rule. Time is passed in, so nothing waits.
 */
import { describe, expect, it } from '@jest/globals';
import { ClientRateLimit, TokenBucket, UsagePlanThrottle } from '../../shared/local/local-throttle';
import { teamIdOfUsageIdentifier, usageIdentifierOf } from '../../shared/service/identity/team-quota';
import type { ThrottleQuota } from '../../shared/service/identity/throttle-quota';

function takeMany(bucket: TokenBucket, count: number, now: number): number {
  let admitted = 0;
  for (let index = 0; index < count; index += 1) if (bucket.tryTake(now)) admitted += 1;
  return admitted;
}

describe('token bucket', () => {
  it('admits a full burst at once, then nothing until tokens refill', () => {
    const bucket = new TokenBucket({ rateLimit: 2, burstLimit: 5 }, 0);

    expect(takeMany(bucket, 8, 0)).toBe(5);
    expect(bucket.tryTake(100)).toBe(false);
  });

  it('refills at the rate per second, never beyond the burst', () => {
    const bucket = new TokenBucket({ rateLimit: 2, burstLimit: 5 }, 0);
    takeMany(bucket, 5, 0);

    expect(takeMany(bucket, 10, 1000)).toBe(2);
    expect(takeMany(bucket, 10, 60_000)).toBe(5);
  });

  it('admits a steady stream at the rate', () => {
    const bucket = new TokenBucket({ rateLimit: 10, burstLimit: 1 }, 0);
    let admitted = 0;
    // 100 requests per second for 10 seconds: 10 per second get through (plus the initial token).
    for (let ms = 0; ms < 10_000; ms += 10) if (bucket.tryTake(ms)) admitted += 1;

    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(101);
  });

  it('caps the tokens left when the burst is lowered', () => {
    const bucket = new TokenBucket({ rateLimit: 1, burstLimit: 50 }, 0);
    bucket.reconfigure({ rateLimit: 1, burstLimit: 2 }, 0);

    expect(takeMany(bucket, 10, 0)).toBe(2);
  });
});

describe('usage-plan throttle', () => {
  const quotas = new Map<string, ThrottleQuota>([
    ['team-a', { rateLimit: 1, burstLimit: 2 }],
    ['team-b', { rateLimit: 1, burstLimit: 2 }],
  ]);

  it('keeps one bucket per key, so one key running dry leaves the others alone', async () => {
    const throttle = new UsagePlanThrottle({ quotaOf: (key) => Promise.resolve(quotas.get(key)) });

    const a = [await throttle.admit('team-a', 0), await throttle.admit('team-a', 0), await throttle.admit('team-a', 0)];
    const b = await throttle.admit('team-b', 0);

    expect(a).toEqual(['allowed', 'allowed', 'throttled']);
    expect(b).toBe('allowed');
  });

  it('answers unknown-key for a key no plan holds', async () => {
    const throttle = new UsagePlanThrottle({ quotaOf: () => Promise.resolve(undefined) });

    await expect(throttle.admit('nobody', 0)).resolves.toBe('unknown-key');
  });

  it('reuses a looked-up quota within the cache time and picks up a change after it', async () => {
    let quota: ThrottleQuota = { rateLimit: 1, burstLimit: 1 };
    let lookups = 0;
    const throttle = new UsagePlanThrottle({
      quotaOf: () => {
        lookups += 1;
        return Promise.resolve(quota);
      },
      cacheMs: 1000,
    });

    await throttle.admit('team', 0);
    const throttledWithin = await throttle.admit('team', 500);
    quota = { rateLimit: 1000, burstLimit: 1000 };
    await throttle.admit('team', 1500);
    // 10 ms at the new rate refill 10 tokens; the old rate (1 per second) would refill none.
    const afterChange = await Promise.all([
      throttle.admit('team', 1510),
      throttle.admit('team', 1510),
      throttle.admit('team', 1510),
    ]);

    expect(throttledWithin).toBe('throttled');
    expect(afterChange).toEqual(['allowed', 'allowed', 'allowed']);
    expect(lookups).toBe(2);
  });
});

describe('per-client limit (WAF rate-based rule)', () => {
  it('blocks a client over the limit within the window and not another client', () => {
    const limit = new ClientRateLimit(10, 60);
    const first = Array.from({ length: 12 }, (_, index) => limit.admit('198.51.100.1', index * 100));

    expect(first.filter(Boolean)).toHaveLength(10);
    expect(first.slice(10)).toEqual([false, false]);
    expect(limit.admit('198.51.100.2', 1200)).toBe(true);
  });

  it('admits the client again once its requests have left the window', () => {
    const limit = new ClientRateLimit(10, 60);
    for (let index = 0; index < 11; index += 1) limit.admit('198.51.100.1', 0);

    expect(limit.admit('198.51.100.1', 30_000)).toBe(false);
    expect(limit.admit('198.51.100.1', 61_000)).toBe(true);
  });

  it('counts blocked requests too, as WAF does, so a client that keeps hammering stays blocked', () => {
    const limit = new ClientRateLimit(10, 60);
    for (let second = 0; second < 120; second += 1)
      for (let index = 0; index < 5; index += 1) limit.admit('198.51.100.1', second * 1000);

    expect(limit.admit('198.51.100.1', 120_000)).toBe(false);
  });
});

describe('usage identifier', () => {
  it('is an API Gateway key value (20-128 alphanumerics) that maps back to the team', () => {
    const teamId = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const identifier = usageIdentifierOf(teamId);

    expect(identifier).toMatch(/^[A-Za-z0-9]{20,128}$/);
    expect(teamIdOfUsageIdentifier(identifier)).toBe(teamId);
  });

  it.each([
    ['vxdteam'],
    ['vxdteam0f8fad5b'],
    ['other0f8fad5bd9cb469fa16570867728950e'],
    ['vxdteam0F8FAD5BD9CB469FA16570867728950E'],
  ])('names no team for %s', (identifier) => {
    expect(teamIdOfUsageIdentifier(identifier)).toBeUndefined();
  });
});
