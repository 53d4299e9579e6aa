/**
 * Every mutating route writes an audit entry: each has a scenario (test/support/audit-scenarios/),
 * run by the audit-coverage-*.test.ts files of its route groups; and key management, a service
 * operation rather than a route, is audited too.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { auditEntries, mutatingRoutes } from '../support/audit-coverage';
import { accessScenarios } from '../support/audit-scenarios/access';
import { catalogScenarios } from '../support/audit-scenarios/catalog';
import { notificationScenarios } from '../support/audit-scenarios/notifications';
import { triageScenarios } from '../support/audit-scenarios/triage';
import { craScenarios } from '../support/audit-scenarios/cra';
import { createTeamWithKey } from '../support/factories';

const scenarios = {
  ...catalogScenarios,
  ...triageScenarios,
  ...accessScenarios,
  ...notificationScenarios,
  ...craScenarios,
};

describe('audit coverage', () => {
  it('has a scenario for every mutating route in the route table', () => {
    const missing = mutatingRoutes
      .map((route) => route.operationId)
      .filter((operationId) => !(operationId in scenarios));
    const stale = Object.keys(scenarios).filter(
      (operationId) => !mutatingRoutes.some((route) => route.operationId === operationId),
    );
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });
  });

  describe('key management (a service operation, not a route)', () => {
    it('audits API key creation and revocation, naming the key and its service account', async () => {
      const team = await createTeamWithKey();
      const before = new Set((await auditEntries(team.teamId)).map((entry) => entry.id));

      const created = await ApiKeys.create(
        team.teamId,
        { name: `ci-${randomUUID().slice(0, 8)}`, scopes: ['products:read'] },
        { byMemberId: team.memberId, operator: OPERATOR_ACTOR },
      );
      await ApiKeys.revoke(team.teamId, created.id, { byMemberId: team.memberId, operator: OPERATOR_ACTOR });

      const added = (await auditEntries(team.teamId)).filter((entry) => !before.has(entry.id));
      const summary = added.map(({ action, entityType, entityId, actorId }) => ({
        action,
        entityType,
        entityId,
        actorId,
      }));
      expect(summary).toHaveLength(2);
      expect(summary).toEqual(
        expect.arrayContaining([
          { action: 'create', entityType: 'api_key', entityId: created.id, actorId: team.memberId },
          { action: 'revoke', entityType: 'api_key', entityId: created.id, actorId: team.memberId },
        ]),
      );
      expect(added.every((entry) => entry.changes.serviceAccount === `api_${created.name}`)).toBe(true);
    });
  });
});
