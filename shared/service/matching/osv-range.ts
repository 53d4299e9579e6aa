/**
 * OSV affected-range evaluation, as the schema's "Evaluation" pseudocode
 * (https://ossf.github.io/osv-schema/#evaluation) specifies it:
 * a version is affected when it is listed in `versions`, or when, within a
 * SEMVER/ECOSYSTEM range that it is before a `limit` of (if any), walking the
 * events sorted by version leaves it vulnerable: `introduced` (with "0" below
 * every version) sets vulnerable when v >= introduced, `fixed` clears it when
 * v >= fixed, `last_affected` clears it when v > last_affected.
 */
import type { AffectedPackage, RangeEvent, VersionRange } from '../corpus/parse/advisory';
import type { Ecosystem } from './ecosystems';
import { comparatorFor, comparatorForRange } from './version-schemes';
import type { VersionComparator } from './versions/comparator';

export type Evaluation = 'affected' | 'not_affected' | 'unknown';

/** Thrown inside the walk when a version cannot be ordered; turned into 'unknown'. */
class Unordered extends Error {}

function comparing(comparator: VersionComparator) {
  return (a: string, b: string): number => {
    const c = comparator.compare(a, b);
    if (c === null) throw new Unordered();
    return c;
  };
}

export function evaluateAffected(version: string, affected: AffectedPackage, ecosystem: Ecosystem): Evaluation {
  if (affected.versions.includes(version)) return 'affected';
  let unknown = false;
  for (const range of affected.ranges) {
    const result = evaluateRange(version, range, ecosystem);
    if (result === 'affected') return 'affected';
    if (result === 'unknown') unknown = true;
  }
  // The listed versions are ecosystem strings; "1.0" and "1.0.0" are one PyPI version.
  const own = comparatorFor(ecosystem);
  if (affected.versions.some((listed) => own.compare(version, listed) === 0)) return 'affected';
  if (affected.ranges.length === 0 && affected.versions.length === 0) return 'unknown';
  return unknown ? 'unknown' : 'not_affected';
}

export function evaluateRange(version: string, range: VersionRange, ecosystem: Ecosystem): Evaluation {
  const compare = comparing(comparatorForRange(range.type, ecosystem));
  try {
    const limits = range.events.filter((e) => e.kind === 'limit');
    // No limit means an implicit limit "*"; otherwise v must be below at least one limit.
    if (limits.length > 0 && !limits.some((l) => l.version.includes('*') || compare(version, l.version) < 0)) {
      return 'not_affected';
    }
    let vulnerable = false;
    for (const event of sortEvents(range.events, compare)) {
      if (event.kind === 'introduced') {
        if (event.version === '0' || compare(version, event.version) >= 0) vulnerable = true;
      } else if (event.kind === 'fixed') {
        if (compare(version, event.version) >= 0) vulnerable = false;
      } else if (event.kind === 'last_affected') {
        if (compare(version, event.version) > 0) vulnerable = false;
      }
    }
    return vulnerable ? 'affected' : 'not_affected';
  } catch (error) {
    if (error instanceof Unordered) return 'unknown';
    throw error;
  }
}

/**
 * Events in version order, `introduced: "0"` first. Equal versions keep their
 * listed order (a stable sort), which is how databases write adjacent pairs.
 */
export function sortEvents(events: RangeEvent[], compare: (a: string, b: string) => number): RangeEvent[] {
  const relevant = events.filter((e) => e.kind !== 'limit');
  const isZero = (e: RangeEvent) => e.kind === 'introduced' && e.version === '0';
  return relevant
    .map((event, index) => ({ event, index }))
    .sort((x, y) => {
      if (isZero(x.event) || isZero(y.event))
        return isZero(x.event) && isZero(y.event) ? x.index - y.index : isZero(x.event) ? -1 : 1;
      return compare(x.event.version, y.event.version) || x.index - y.index;
    })
    .map(({ event }) => event);
}

/** Human-readable ranges: ">=2.13.0, <2.15.0; <2.3.1", plus enumerated versions. */
export function describeAffected(affected: AffectedPackage[], ecosystem: Ecosystem): string {
  const parts: string[] = [];
  for (const entry of affected) {
    for (const range of entry.ranges) parts.push(...describeRange(range, ecosystem));
    if (entry.versions.length > 0) {
      const shown = entry.versions.slice(0, 5).join(', ');
      parts.push(`versions ${shown}${entry.versions.length > 5 ? ` (+${entry.versions.length - 5} more)` : ''}`);
    }
  }
  return [...new Set(parts)].join('; ');
}

function describeRange(range: VersionRange, ecosystem: Ecosystem): string[] {
  let events: RangeEvent[];
  try {
    events = sortEvents(range.events, comparing(comparatorForRange(range.type, ecosystem)));
  } catch {
    events = range.events.filter((e) => e.kind !== 'limit');
  }
  const out: string[] = [];
  let lower: string | null = null;
  let open = false;
  for (const event of events) {
    if (event.kind === 'introduced') {
      if (!open) lower = event.version === '0' ? null : event.version;
      open = true;
    } else if (open) {
      const upper = event.kind === 'fixed' ? `<${event.version}` : `<=${event.version}`;
      out.push(lower === null ? upper : `>=${lower}, ${upper}`);
      open = false;
    }
  }
  if (open) out.push(lower === null ? 'all versions' : `>=${lower}`);
  return out;
}

/** Fixed versions above the component's version (the upgrade targets), in ascending order. */
export function fixedVersionsAbove(
  version: string | undefined,
  affected: AffectedPackage[],
  ecosystem: Ecosystem,
): string[] {
  const fixes = new Set<string>();
  const comparator = comparatorFor(ecosystem);
  for (const entry of affected) {
    for (const range of entry.ranges) {
      for (const event of range.events) {
        if (event.kind !== 'fixed') continue;
        const c =
          version === undefined ? null : comparatorForRange(range.type, ecosystem).compare(event.version, version);
        if (c === null || c > 0) fixes.add(event.version);
      }
    }
  }
  return [...fixes].sort((a, b) => comparator.compare(a, b) ?? 0);
}
