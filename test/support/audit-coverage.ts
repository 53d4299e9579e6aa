/**
 * Every mutating route writes an audit entry (spec "Authentication" rule 11, "Events": the audit log
 * records actions). The route table drives the tests: each route marked `mutates: true` needs a
 * scenario (test/support/audit-scenarios/) that performs a real, successful call over HTTP, and a new
 * route without one fails test/integration/audit-coverage.test.ts until someone writes it.
 */
import { describe, expect, it } from '@jest/globals';
import { toAuditEntry, type AuditEntry } from '../../shared/service/audit/audit-log';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { routes } from '../../shared/service/http/routes';
import { createTeamWithKey } from './factories';
import type { Scenario } from './audit-scenarios/scenario';

export async function auditEntries(teamId: string): Promise<AuditEntry[]> {
  return (await readAuditLog(teamId)).map(toAuditEntry);
}

export const mutatingRoutes = routes.filter((route) => route.mutates);

/** One test per mutating route that has one of these scenarios: the call succeeds and is audited as the caller did it. */
export function describeAuditCoverage(scenarios: Record<string, Scenario>): void {
  const covered = mutatingRoutes.filter((route) => route.operationId in scenarios);
  describe('audit coverage', () => {
    it.each(covered.map((route) => [route.operationId, route.method, route.path] as const))(
      '%s (%s %s) writes an audit entry attributed to the calling key',
      async (operationId) => {
        const scenario = scenarios[operationId];
        if (!scenario)
          throw new Error(
            `No audit-coverage scenario for mutating route ${operationId}: add one to test/support/audit-scenarios/`,
          );
        const team = await createTeamWithKey();
        const { act } = await scenario(team);
        const before = new Set((await auditEntries(team.teamId)).map((entry) => entry.id));

        const performed = await act();
        const { response, entityId } = performed;

        // Status and body together, so a failure shows why the call was refused.
        // 303: the sign-in callback's success sends the browser on.
        expect(`${response.status} ${response.status >= 300 ? response.text : ''}`).toMatch(/^(2\d\d|303) /);
        const added = (await auditEntries(team.teamId)).filter((entry) => !before.has(entry.id));
        expect(added.length).toBeGreaterThan(0);
        // Spec "Authentication" rule 11: a key's actions are attributed to its service account.
        expect(added.map((entry) => entry.actorName)).toContain(performed.actorName ?? `api_${team.keyName}`);
        if (entityId !== undefined) expect(added.map((entry) => entry.entityId)).toContain(entityId);
      },
    );
  });
}
