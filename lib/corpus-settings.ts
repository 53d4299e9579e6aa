/**
 * The corpus refresh's context values (lib/settings.ts maps the keys): which OSV ecosystems, and when it runs.
 */
import type { Node } from 'constructs';
import { ECOSYSTEMS } from '../shared/service/matching/ecosystems';

/** Comma-separated (as `-c` passes it) or a JSON array (cdk.json); '' = none. */
export function osvEcosystemsOf(node: Node, key: string): string[] | undefined {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined) return undefined;
  const list =
    typeof raw === 'string'
      ? raw
          .split(',')
          .map((value) => value.trim())
          .filter(Boolean)
      : raw;
  if (!Array.isArray(list))
    throw new Error(`Context ${key} must be a comma-separated list of OSV ecosystems, got ${JSON.stringify(raw)}`);
  const supported: readonly string[] = ECOSYSTEMS;
  for (const ecosystem of list) {
    if (typeof ecosystem !== 'string' || !supported.includes(ecosystem)) {
      throw new Error(
        `Context ${key}: ${JSON.stringify(ecosystem)} is not an ecosystem the matcher supports (${ECOSYSTEMS.join(', ')})`,
      );
    }
  }
  return [...new Set(list as string[])];
}

/**
 * `rate(<n> minute|minutes|hour|hours|day|days)` (1 takes the singular, as EventBridge requires) or `cron(<6 fields>)`.
 * Checked here so a typo fails synth, not the deployment.
 */
export function corpusRefreshScheduleOf(node: Node, key: string): string | undefined {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' ? raw.trim() : '';
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(value);
  const rateValid = rate !== null && Number(rate[1]) >= 1 && (Number(rate[1]) === 1) === !rate[2]!.endsWith('s');
  const cronValid = /^cron\(\S+( \S+){5}\)$/.test(value);
  if (!rateValid && !cronValid)
    throw new Error(
      `Context ${key} must be an EventBridge schedule such as "rate(1 hour)", "rate(30 minutes)" or "cron(17 * * * ? *)", got ${JSON.stringify(raw)}`,
    );
  return value;
}
