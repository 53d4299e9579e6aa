/** Audit-coverage scenarios of the CRA route group: a case opened by marking a seeded finding's CVE exploited. */
import { ok, seeded, type Data, type Scenario, type Team } from './scenario';

async function exploitedCase(team: Team) {
  const { product, findings } = await seeded(team);
  ok(await team.api.put(`/api/products/${product.id}`, { cra_in_scope: true }), 'put the product in CRA scope');
  const marked = ok(
    await team.api.post<Data<{ case_ids: string[] }>>('/api/cra/exploited', {
      vulnerability_id: findings[0]?.cveId,
      reason: 'Exploited in the wild',
      evidence_url: 'https://intel.example/1',
    }),
    'mark exploited',
  );
  const caseId = marked.data.case_ids[0];
  if (!caseId) throw new Error('marking the CVE exploited opened no case');
  return { caseId, findings };
}

const submit = (team: Team, caseId: string, stage: string) =>
  team.api.post(`/api/cra/cases/${caseId}/submissions`, {
    stage,
    submitted_at: new Date().toISOString(),
    reference: `REF-${stage}`,
  });

export const craScenarios: Record<string, Scenario> = {
  markExploited: async (team) => {
    const { product, findings } = await seeded(team);
    ok(await team.api.put(`/api/products/${product.id}`, { cra_in_scope: true }), 'put the product in CRA scope');
    return {
      act: async () => {
        const id = findings[0]?.cveId ?? '';
        const response = await team.api.post('/api/cra/exploited', {
          vulnerability_id: id,
          reason: 'Exploited in the wild',
          evidence_url: 'https://intel.example/1',
        });
        return { response, entityId: id };
      },
    };
  },
  updateCraCase: async (team) => {
    const { caseId } = await exploitedCase(team);
    return {
      act: async () => ({
        response: await team.api.put(`/api/cra/cases/${caseId}`, { drafts: { early_warning: { summary: 'Edited' } } }),
        entityId: caseId,
      }),
    };
  },
  dismissCraCase: async (team) => {
    const { caseId } = await exploitedCase(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/cra/cases/${caseId}/dismiss`, { reason: 'not affected' }),
        entityId: caseId,
      }),
    };
  },
  recordCraFix: async (team) => {
    const { caseId } = await exploitedCase(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/cra/cases/${caseId}/fix`, {
          measure: 'Configuration workaround published',
          available_at: new Date().toISOString(),
        }),
        entityId: caseId,
      }),
    };
  },
  recordCraSubmission: async (team) => {
    const { caseId } = await exploitedCase(team);
    return { act: async () => ({ response: await submit(team, caseId, 'early_warning'), entityId: caseId }) };
  },
  informCraUsers: async (team) => {
    const { caseId } = await exploitedCase(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/cra/cases/${caseId}/inform-users`, {}),
        entityId: caseId,
      }),
    };
  },
  closeCraCase: async (team) => {
    const { caseId } = await exploitedCase(team);
    ok(await submit(team, caseId, 'early_warning'), 'early warning');
    ok(await submit(team, caseId, 'notification'), 'notification');
    ok(
      await team.api.post(`/api/cra/cases/${caseId}/fix`, { measure: 'Patch', available_at: new Date().toISOString() }),
      'fix',
    );
    ok(await submit(team, caseId, 'final_report'), 'final report');
    return {
      act: async () => ({ response: await team.api.post(`/api/cra/cases/${caseId}/close`, {}), entityId: caseId }),
    };
  },
};
