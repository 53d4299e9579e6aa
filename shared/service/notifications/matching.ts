/** Whether a rule wants an event: its types and every filter it sets must hold. */
import type { TeamEvent } from '../events/event-store';
import type { ReleaseStatus } from '../releases/release-store';
import type { StoredRule } from './rule-store';

const SEVERITY_RANK: Record<string, number> = { critical: 4, high: 3, medium: 2, low: 1 };

/**
 * `minSeverity` and `kevOnly` speak of a finding: an event that carries no severity (a scan, a VEX
 * transition) does not pass them, so "critical findings only" never pages for a routine scan.
 */
export function ruleMatches(rule: StoredRule, event: TeamEvent, releaseStatus: ReleaseStatus | undefined): boolean {
  if (!rule.enabled || !rule.eventTypes.includes(event.type)) return false;
  const { productIds, minSeverity, kevOnly, releaseStatus: statuses } = rule.filters;
  if (productIds && !productIds.includes(event.productId)) return false;
  if (minSeverity) {
    const severity = typeof event.data.severity === 'string' ? event.data.severity.toLowerCase() : '';
    if ((SEVERITY_RANK[severity] ?? 0) < (SEVERITY_RANK[minSeverity] ?? 0)) return false;
  }
  if (kevOnly && event.data.is_kev !== true) return false;
  if (statuses && (releaseStatus === undefined || !statuses.includes(releaseStatus))) return false;
  return true;
}
