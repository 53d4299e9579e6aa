/**
 * What a decision (disposition) is about, and how a finding finds its decision.
 *
 * Issue 13 moves decisions from one finding to one (release, package, advisory):
 * every SBOM of a release that contains the package at that version meets the
 * same decision. This module is the one place that says which findings share a
 * decision and whether a decision still counts; lists, VEX generation, the
 * compliance report and scans join findings to dispositions only through it.
 */
import { createHash } from 'node:crypto';
import { parsePurl } from '../sbom/purl';
import type { Disposition } from './disposition-store';
import type { DispositionStatus } from './vocabulary';

/** The finding fields a decision's identity is made of. */
export interface DecisionSubject {
  advisoryId: string;
  componentPurl: string | null;
  componentName: string;
  componentVersion: string | null;
}

/**
 * The package at its version: the purl without qualifiers and subpath (they name a
 * build or a file of the same package, not another package), else name@version.
 */
export function packageIdentity(subject: Omit<DecisionSubject, 'advisoryId'>): string {
  const purl = subject.componentPurl ? parsePurl(subject.componentPurl) : undefined;
  if (purl) {
    try {
      purl.qualifiers = undefined;
      purl.subpath = undefined;
      if (!purl.version && subject.componentVersion) purl.version = subject.componentVersion;
      return purl.toString();
    } catch {
      // an unserialisable purl falls back to the name form
    }
  }
  return `name:${subject.componentName}@${subject.componentVersion ?? ''}`;
}

/** The package without its version: what "any version" carry-over matches on. */
export function packageIdentityWithoutVersion(subject: Omit<DecisionSubject, 'advisoryId'>): string {
  return packageIdentity({
    ...subject,
    componentVersion: null,
    componentPurl: subject.componentPurl?.replace(/@[^@?#]*(?=[?#]|$)/, '') ?? null,
  });
}

/** A short stable key of (package at version, advisory): equal for every SBOM finding the same pair. */
export function decisionKey(subject: DecisionSubject): string {
  // Lists join every row of a release per request (20,000 purl parses and hashes cost ~1 s); findings are never mutated.
  let key = computedKeys.get(subject);
  if (key === undefined) {
    key = createHash('sha256')
      .update(`${packageIdentity(subject)}\u0000${subject.advisoryId}`)
      .digest('hex')
      .slice(0, 32);
    computedKeys.set(subject, key);
  }
  return key;
}

const computedKeys = new WeakMap<DecisionSubject, string>();

/** Everything a disposition item stores about what it decides. */
export interface DecisionIdentity {
  decisionKey: string;
  advisoryId: string;
  packageIdentity: string;
  packageWithoutVersion: string;
}

export function decisionIdentity(subject: DecisionSubject): DecisionIdentity {
  return {
    decisionKey: decisionKey(subject),
    advisoryId: subject.advisoryId,
    packageIdentity: packageIdentity(subject),
    packageWithoutVersion: packageIdentityWithoutVersion(subject),
  };
}

/**
 * Finds each finding's decision among a release's dispositions: the one on the
 * finding's (package at version, advisory), whichever SBOM the finding is in.
 */
export function decisionIndex(
  dispositions: readonly Disposition[],
): (finding: DecisionSubject & { id: string }) => Disposition | undefined {
  const byKey = new Map(dispositions.map((disposition) => [disposition.decisionKey, disposition]));
  return (finding) => byKey.get(decisionKey(finding));
}

/** Why a decision does (not) count: `expired` and `review_required` decisions count as undecided. */
export type DecisionState = 'none' | 'decided' | 'carried' | 'review_required' | 'expired';

export function decisionState(disposition: Disposition | undefined, now: string): DecisionState {
  if (!disposition) return 'none';
  if (disposition.expiresAt !== null && disposition.expiresAt <= now) return 'expired';
  if (disposition.reviewRequired) return 'review_required';
  return disposition.carriedFrom ? 'carried' : 'decided';
}

/** The status that counts in summaries, `undisposed` filters, gates, SLA and the report; undefined = undecided. */
export function effectiveStatus(disposition: Disposition | undefined, now: string): DispositionStatus | undefined {
  const state = decisionState(disposition, now);
  return state === 'none' || state === 'expired' || state === 'review_required' ? undefined : disposition?.status;
}

/** The decision when it counts, else undefined: what the compliance report and VEX generation state. */
export function countedDecision(disposition: Disposition | undefined, now: string): Disposition | undefined {
  return effectiveStatus(disposition, now) === undefined ? undefined : disposition;
}

/**
 * The decision's free text with where it came from: a carried decision names its
 * source release, disposition, decider and date (VEX `detail` / notes carry it).
 */
export function detailWithProvenance(disposition: Disposition): string | null {
  const from = disposition.carriedFrom;
  if (!from) return disposition.detail;
  const note = `Decision carried from release ${from.releaseVersion} (disposition ${from.dispositionId}), decided by ${from.decidedBy.name} on ${from.decidedAt.slice(0, 10)}.`;
  // VEX input holds at most 5,000 characters of detail (as a member can write); the note wins over the tail.
  return disposition.detail ? `${disposition.detail.slice(0, 5000 - note.length - 2)}\n\n${note}` : note;
}
