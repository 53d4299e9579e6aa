import { describe, expect, it } from '@jest/globals';
import {
  decisionIndex,
  decisionKey,
  decisionState,
  detailWithProvenance,
  effectiveStatus,
  packageIdentity,
  packageIdentityWithoutVersion,
} from '../../shared/service/dispositions/decision-identity';
import type { Disposition } from '../../shared/service/dispositions/disposition-store';

const subject = (purl: string | null, version: string | null = '1.2.3', name = 'lodash') => ({
  advisoryId: 'GHSA-1',
  componentPurl: purl,
  componentName: name,
  componentVersion: version,
});

function disposition(fields: Partial<Disposition>): Disposition {
  return {
    id: 'd',
    teamId: 't',
    productId: 'p',
    releaseId: 'r',
    vulnerabilityId: 'f',
    decisionKey: decisionKey(subject('pkg:npm/lodash@1.2.3')),
    advisoryId: 'GHSA-1',
    packageIdentity: 'pkg:npm/lodash@1.2.3',
    packageWithoutVersion: 'pkg:npm/lodash',
    status: 'not_affected',
    justification: 'component_not_present',
    response: null,
    detail: null,
    actionStatement: null,
    impactStatement: null,
    assignedTo: null,
    decidedAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    updatedBy: { id: 'u', name: 'Ana' },
    revision: 1,
    expiresAt: null,
    reviewRequired: false,
    carriedFrom: null,
    importedFrom: null,
    ...fields,
  };
}

describe('decision identity', () => {
  it('names the package at its version: qualifiers and subpath do not make another package, the version does', () => {
    expect(packageIdentity(subject('pkg:npm/lodash@1.2.3?arch=x86#lib/a.js'))).toBe('pkg:npm/lodash@1.2.3');
    expect(packageIdentity(subject('pkg:npm/lodash'))).toBe('pkg:npm/lodash@1.2.3');
    expect(packageIdentity(subject(null))).toBe('name:lodash@1.2.3');
    expect(packageIdentityWithoutVersion(subject('pkg:npm/lodash@1.2.3?arch=x86'))).toBe('pkg:npm/lodash');
    expect(decisionKey(subject('pkg:npm/lodash@1.2.3?arch=x86'))).toBe(decisionKey(subject('pkg:npm/lodash@1.2.3')));
    expect(decisionKey(subject('pkg:npm/lodash@1.2.4', '1.2.4'))).not.toBe(
      decisionKey(subject('pkg:npm/lodash@1.2.3')),
    );
    expect(decisionKey({ ...subject('pkg:npm/lodash@1.2.3'), advisoryId: 'GHSA-2' })).not.toBe(
      decisionKey(subject('pkg:npm/lodash@1.2.3')),
    );
  });

  it('joins a finding of any SBOM of the release to the decision on its package and advisory', () => {
    const decision = disposition({});
    const find = decisionIndex([decision]);
    expect(find({ id: 'finding-in-another-sbom', ...subject('pkg:npm/lodash@1.2.3') })).toBe(decision);
    expect(find({ id: 'f', ...subject('pkg:npm/lodash@1.2.4', '1.2.4') })).toBeUndefined();
  });

  it('counts expired and review-required decisions as undecided and says which', () => {
    const now = '2026-06-01T00:00:00.000Z';
    expect(decisionState(disposition({ expiresAt: '2026-05-31T23:59:59.000Z' }), now)).toBe('expired');
    expect(effectiveStatus(disposition({ expiresAt: '2026-05-31T23:59:59.000Z' }), now)).toBeUndefined();
    expect(effectiveStatus(disposition({ expiresAt: '2026-06-02T00:00:00.000Z' }), now)).toBe('not_affected');
    const carried = {
      releaseId: 'r0',
      releaseVersion: '0.9.0',
      dispositionId: 'd0',
      decidedBy: { id: 'u', name: 'Ana' },
      decidedAt: '2025-12-01T10:00:00.000Z',
    };
    expect(decisionState(disposition({ carriedFrom: carried, reviewRequired: true }), now)).toBe('review_required');
    expect(effectiveStatus(disposition({ carriedFrom: carried, reviewRequired: true }), now)).toBeUndefined();
    expect(decisionState(disposition({ carriedFrom: carried }), now)).toBe('carried');
    expect(detailWithProvenance(disposition({ carriedFrom: carried, detail: 'Unused.' }))).toBe(
      'Unused.\n\nDecision carried from release 0.9.0 (disposition d0), decided by Ana on 2025-12-01.',
    );
    expect(detailWithProvenance(disposition({ carriedFrom: carried, detail: 'x'.repeat(5000) }))?.length).toBe(5000);
  });
});
