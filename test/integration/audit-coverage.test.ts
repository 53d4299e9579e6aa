/**
 * Every mutating route writes an audit entry (spec "Authentication" rule 11, "Events":
 * the audit log records actions). The route table drives the test: each route marked
 * `mutates: true` needs a scenario below that performs a real, successful call over
 * HTTP, and a new route without one fails the suite until someone writes it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { toAuditEntry, type AuditEntry } from '../../shared/service/audit/audit-log';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { routes } from '../../shared/service/http/routes';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { ApiKeys } from '../../shared/service/identity/api-keys';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { baseUrl, request, type HttpResponse } from '../support/http-client';
import { browserFetch, browserSignIn, devAccount } from '../support/browser-session';
import { OWNER_ID, startTestIssuer } from '../support/oidc-issuer';
import { cycloneDxSbom, seedReleaseWithFindings, type SeededFinding } from '../support/seed';

type Team = Awaited<ReturnType<typeof createTeamWithKey>>;
type Data<T> = { data: T };
type WithId = Data<{ id: string }>;
interface Seeded {
  product: { id: string };
  release: { id: string };
  sbom: { id: string };
  findings: SeededFinding[];
}

/** What a scenario did: the call under test, and the entity its audit entry must name (when the call returns it). */
interface Performed {
  response: HttpResponse<unknown>;
  entityId?: string | undefined;
  /** The audit actor when it is not the calling key (the public OIDC exchange acts as the trust policy). */
  actorName?: string;
}

/** Arrange everything the call needs, then `act` performs exactly the call under test. */
type Scenario = (team: Team) => Promise<{ act: () => Promise<Performed> }>;

function trustPolicyBody(issuer: string) {
  return {
    name: `ci-${randomUUID().slice(0, 8)}`,
    issuer,
    audience: 'vexdesk',
    claims: { repository_owner_id: OWNER_ID },
    scopes: ['products:read'],
  };
}

async function auditEntries(teamId: string): Promise<AuditEntry[]> {
  return (await readAuditLog(teamId)).map(toAuditEntry);
}

function ok<T>(response: HttpResponse<T>, what: string): T {
  if (response.status >= 300) throw new Error(`${what} failed during setup: ${response.status} ${response.text}`);
  return response.body;
}

/** `data.<field>` of a response body, when the call returned one. */
function dataField(response: HttpResponse<unknown>, field: string): string | undefined {
  const value = (response.body as Partial<Data<Record<string, unknown>>> | undefined)?.data?.[field];
  return typeof value === 'string' ? value : undefined;
}

async function product(team: Team) {
  return ok(await team.api.post<WithId>('/api/products', { name: 'Audited', slug: uniqueSlug() }), 'create product')
    .data;
}

async function release(team: Team) {
  const created = await product(team);
  return ok(await team.api.post<WithId>(`/api/products/${created.id}/releases`, { version: '1.0.0' }), 'create release')
    .data;
}

async function seeded(team: Team): Promise<Seeded> {
  return seedReleaseWithFindings(team.api, team.teamId, 3);
}

/**
 * Every upload also starts a background scan, which audits when it finishes; wait for it,
 * so no entry from it lands after the "before" snapshot of the call under test.
 */
async function scanFinished(team: Team, sbomId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const sbom = await team.api.get<Data<{ scan: { status: string } }>>(`/api/sboms/${sbomId}`);
    if (['completed', 'failed'].includes(sbom.body.data.scan.status)) return;
    if (Date.now() > deadline) throw new Error(`the upload-triggered scan of ${sbomId} did not finish: ${sbom.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function draftVex(team: Team) {
  const { release: seededRelease } = await seeded(team);
  const document = ok(
    await team.api.post<WithId>(`/api/releases/${seededRelease.id}/vex`, { format: 'openvex' }),
    'create VEX',
  ).data;
  return { releaseId: seededRelease.id, vexId: document.id };
}

async function submittedVex(team: Team) {
  const draft = await draftVex(team);
  ok(await team.api.post(`/api/vex/${draft.vexId}/submit`, {}), 'submit VEX');
  return draft;
}

async function approvedVex(team: Team) {
  const submitted = await submittedVex(team);
  ok(await team.api.post(`/api/vex/${submitted.vexId}/approve`, {}), 'approve VEX');
  return submitted;
}

const SBOM = cycloneDxSbom([{ name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' }]);

const scenarios: Record<string, Scenario> = {
  // Nothing to arrange: the team itself is the precondition.
  createProduct: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/products', { name: 'New', slug: uniqueSlug() });
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  updateProduct: async (team) => {
    const { id } = await product(team);
    return {
      act: async () => ({
        response: await team.api.put(`/api/products/${id}`, { description: 'changed' }),
        entityId: id,
      }),
    };
  },
  deleteProduct: async (team) => {
    const { id } = await product(team);
    return { act: async () => ({ response: await team.api.delete(`/api/products/${id}`), entityId: id }) };
  },
  createRelease: async (team) => {
    const { id } = await product(team);
    return {
      act: async () => {
        const response = await team.api.post(`/api/products/${id}/releases`, { version: '2.0.0' });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  updateRelease: async (team) => {
    const { id } = await release(team);
    return {
      act: async () => ({
        response: await team.api.put(`/api/releases/${id}`, { status: 'deprecated' }),
        entityId: id,
      }),
    };
  },
  deleteRelease: async (team) => {
    const { release: seededRelease } = await seeded(team);
    return {
      act: async () => ({
        response: await team.api.delete(`/api/releases/${seededRelease.id}`),
        entityId: seededRelease.id,
      }),
    };
  },
  deleteSbom: async (team) => {
    const { sbom } = await seeded(team);
    return { act: async () => ({ response: await team.api.delete(`/api/sboms/${sbom.id}`), entityId: sbom.id }) };
  },
  uploadSbom: async (team) => {
    const { id } = await release(team);
    return {
      act: async () => {
        const response = await team.api.post('/api/sboms/upload', {
          releaseId: id,
          content: SBOM,
          fileName: 'bom.json',
        });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  createSbomUpload: async (team) => {
    const { id } = await release(team);
    return {
      act: async () => {
        const response = await team.api.post('/api/sboms/uploads', {
          releaseId: id,
          fileName: 'large.json',
          size: Buffer.byteLength(SBOM),
        });
        return { response, entityId: dataField(response, 'uploadId') };
      },
    };
  },
  completeSbomUpload: async (team) => {
    const { id } = await release(team);
    const upload = ok(
      await team.api.post<Data<{ uploadId: string; uploadUrl: string }>>('/api/sboms/uploads', {
        releaseId: id,
        fileName: 'large.json',
        size: Buffer.byteLength(SBOM),
      }),
      'create upload',
    ).data;
    const put = await fetch(upload.uploadUrl, { method: 'PUT', body: SBOM });
    if (!put.ok) throw new Error(`PUT to the pre-signed URL failed: ${put.status}`);
    return {
      act: async () => {
        const response = await team.api.post(`/api/sboms/uploads/${upload.uploadId}/complete`);
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  triggerCveScan: async (team) => {
    const { id } = await release(team);
    const sbom = ok(
      await team.api.post<WithId>('/api/sboms/upload', { releaseId: id, content: SBOM }),
      'upload SBOM',
    ).data;
    await scanFinished(team, sbom.id);
    return {
      act: async () => ({ response: await team.api.post('/api/cve-scan', { sbomId: sbom.id }), entityId: sbom.id }),
    };
  },
  upsertDisposition: async (team) => {
    const { findings } = await seeded(team);
    return {
      act: async () => {
        const response = await team.api.post('/api/dispositions', {
          vulnerabilityId: findings[0]?.id,
          status: 'under_investigation',
        });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  batchDispositions: async (team) => {
    const { findings } = await seeded(team);
    return {
      act: async () => ({
        response: await team.api.post('/api/dispositions/batch', {
          vulnerabilityIds: findings.map((finding) => finding.id),
          status: 'fixed',
        }),
      }),
    };
  },
  importVex: async (team) => {
    const { release, findings } = await seeded(team);
    const document = {
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': 'https://example.com/vex/audited',
      author: 'Supplier',
      timestamp: '2026-01-01T00:00:00Z',
      version: 1,
      statements: findings.map((finding, index) => ({
        vulnerability: { name: finding.cveId },
        products: [{ '@id': `pkg:npm/${finding.componentName}@1.${index}.0` }],
        status: 'fixed',
      })),
    };
    return {
      act: async () => ({
        response: await request('POST', `/api/releases/${release.id}/vex-imports`, {
          key: team.key,
          rawBody: JSON.stringify(document),
          headers: { 'Content-Type': 'application/json' },
        }),
        entityId: release.id,
      }),
    };
  },
  confirmDisposition: async (team) => {
    // A decision carried to a new release at another package version waits for review (carryOver any_version).
    const { product, findings } = await seeded(team);
    ok(await team.api.put('/api/settings', { carryOver: 'any_version' }), 'carry any version');
    ok(
      await team.api.post('/api/dispositions', {
        vulnerabilityId: findings[0]?.id,
        status: 'not_affected',
        justification: 'component_not_present',
      }),
      'decide',
    );
    const next = ok(
      await team.api.post<WithId>(`/api/products/${product.id}/releases`, { version: '2.0.0' }),
      'release',
    ).data;
    const name = findings[0]!.componentName;
    const sbom = ok(
      await team.api.post<WithId>('/api/sboms/upload', {
        releaseId: next.id,
        content: cycloneDxSbom([{ name, version: '1.0.1', purl: `pkg:npm/${name}@1.0.1` }]),
        fileName: 'bom.json',
      }),
      'upload',
    ).data;
    ok(await team.api.post('/api/cve-scan', { sbomId: sbom.id }), 'scan');
    const listed = ok(
      await team.api.get<Data<{ disposition?: { id: string; review_required: boolean } }[]>>(
        `/api/sboms/${sbom.id}/vulnerabilities`,
      ),
      'list',
    ).data;
    const carried = listed[0]?.disposition;
    if (!carried?.review_required) throw new Error('confirm scenario: no decision waiting for review');
    return {
      act: async () => ({
        response: await team.api.post(`/api/dispositions/${carried.id}/confirm`, {}),
        entityId: carried.id,
      }),
    };
  },
  updateDisposition: async (team) => {
    const { findings } = await seeded(team);
    const disposition = ok(
      await team.api.post<WithId>('/api/dispositions', {
        vulnerabilityId: findings[0]?.id,
        status: 'under_investigation',
      }),
      'create disposition',
    ).data;
    return {
      act: async () => ({
        response: await team.api.put(`/api/dispositions/${disposition.id}`, {
          status: 'not_affected',
          justification: 'component_not_present',
        }),
        entityId: disposition.id,
      }),
    };
  },
  createVexDocument: async (team) => {
    const { release: seededRelease } = await seeded(team);
    return {
      act: async () => {
        const response = await team.api.post(`/api/releases/${seededRelease.id}/vex`, { format: 'csaf' });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  regenerateVexDocument: async (team) => {
    const { vexId } = await draftVex(team);
    return { act: async () => ({ response: await team.api.post(`/api/vex/${vexId}/regenerate`), entityId: vexId }) };
  },
  deleteVexDocument: async (team) => {
    const { vexId } = await draftVex(team);
    return { act: async () => ({ response: await team.api.delete(`/api/vex/${vexId}`), entityId: vexId }) };
  },
  submitVexDocument: async (team) => {
    const { vexId } = await draftVex(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/vex/${vexId}/submit`, { comment: 'please review' }),
        entityId: vexId,
      }),
    };
  },
  approveVexDocument: async (team) => {
    const { vexId } = await submittedVex(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/vex/${vexId}/approve`, { comment: 'looks right' }),
        entityId: vexId,
      }),
    };
  },
  rejectVexDocument: async (team) => {
    const { vexId } = await submittedVex(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/vex/${vexId}/reject`, { comment: 'justification missing' }),
        entityId: vexId,
      }),
    };
  },
  publishVexDocument: async (team) => {
    const { vexId } = await approvedVex(team);
    return { act: async () => ({ response: await team.api.post(`/api/vex/${vexId}/publish`, {}), entityId: vexId }) };
  },
  unlockRelease: async (team) => {
    const { releaseId } = await submittedVex(team);
    return {
      act: async () => ({
        response: await team.api.post(`/api/releases/${releaseId}/unlock`, { comment: 'hotfix needed' }),
        entityId: releaseId,
      }),
    };
  },
  createTrustPolicy: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post(
          '/api/trust-policies',
          trustPolicyBody('https://token.actions.githubusercontent.com'),
        );
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  deleteTrustPolicy: async (team) => {
    const policy = ok(
      await team.api.post<WithId>(
        '/api/trust-policies',
        trustPolicyBody('https://token.actions.githubusercontent.com'),
      ),
      'create trust policy',
    ).data;
    return {
      act: async () => ({ response: await team.api.delete(`/api/trust-policies/${policy.id}`), entityId: policy.id }),
    };
  },
  inviteMember: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/members', {
          email: `invited-${randomUUID().slice(0, 8)}@example.test`,
        });
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  updateMember: async (team) => {
    const member = ok(
      await team.api.post<WithId>('/api/members', { email: `updated-${randomUUID().slice(0, 8)}@example.test` }),
      'invite member',
    ).data;
    return {
      act: async () => ({
        response: await team.api.put(`/api/members/${member.id}`, { permissions: ['content.write'] }),
        entityId: member.id,
      }),
    };
  },
  removeMember: async (team) => {
    const member = ok(
      await team.api.post<WithId>('/api/members', { email: `removed-${randomUUID().slice(0, 8)}@example.test` }),
      'invite member',
    ).data;
    return { act: async () => ({ response: await team.api.delete(`/api/members/${member.id}`), entityId: member.id }) };
  },
  createApiKey: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/keys', {
          name: `self-${randomUUID().slice(0, 8)}`,
          scopes: ['products:read'],
        });
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  revokeApiKey: async (team) => {
    const key = ok(
      await team.api.post<WithId>('/api/keys', { name: `self-${randomUUID().slice(0, 8)}`, scopes: ['products:read'] }),
      'create key',
    ).data;
    return { act: async () => ({ response: await team.api.delete(`/api/keys/${key.id}`), entityId: key.id }) };
  },
  finishSignIn: async (team) => {
    // The member's name is the invitation's (here the email's local part), not the provider's.
    const account = await devAccount('audited');
    ok(await team.api.post('/api/members', { email: account.email }), 'invite member');
    const { hops, jar } = await browserSignIn(account, { stopBeforeCallback: true });
    const callbackUrl = new URL(hops[hops.length - 1]!.headers.get('location')!).href;
    return {
      act: async () => {
        const answer = await browserFetch(jar, callbackUrl);
        return {
          response: { status: answer.status, headers: answer.headers, body: undefined, text: answer.text },
          actorName: account.email.slice(0, account.email.indexOf('@')),
        };
      },
    };
  },
  signOut: async (team) => {
    const account = await devAccount('audited');
    ok(await team.api.post('/api/members', { email: account.email }), 'invite member');
    const { jar } = await browserSignIn(account);
    const me = await browserFetch(jar, `${baseUrl()}/api/me`);
    const csrfToken = (JSON.parse(me.text) as { data: { session: { csrfToken: string } } }).data.session.csrfToken;
    return {
      act: async () => {
        const answer = await browserFetch(jar, `${baseUrl()}/api/auth/logout`, {
          method: 'POST',
          headers: { Origin: new URL(baseUrl()).origin, 'X-CSRF-Token': csrfToken },
        });
        return {
          response: { status: answer.status, headers: answer.headers, body: undefined, text: answer.text },
          actorName: account.email.slice(0, account.email.indexOf('@')),
        };
      },
    };
  },
  exchangeOidcToken: async (team) => {
    const issuer = await startTestIssuer();
    const policy = ok(
      await team.api.post<WithId & { data: { name: string } }>('/api/trust-policies', trustPolicyBody(issuer.issuer)),
      'create trust policy',
    ).data;
    const token = await issuer.mint();
    return {
      act: async () => {
        try {
          const response = await request('POST', '/api/auth/oidc/token', { body: { token, teamId: team.teamId } });
          return { response, actorName: `oidc_${policy.name} (octo-org/octo-repo refs/heads/main run 9876543210)` };
        } finally {
          await issuer.close();
        }
      },
    };
  },
  rotatePublisherKey: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/settings/publisher-keys/rotate');
        return { response, entityId: dataField(response, 'fingerprint') };
      },
    }),
  updateTeamSettings: (team) =>
    Promise.resolve({
      act: async () => ({
        response: await team.api.put('/api/settings', { slaPolicy: { critical: 5 }, requireDistinctApprover: true }),
        entityId: team.teamId,
      }),
    }),
};

const mutatingRoutes = routes.filter((route) => route.mutates);

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

  it.each(mutatingRoutes.map((route) => [route.operationId, route.method, route.path] as const))(
    '%s (%s %s) writes an audit entry attributed to the calling key',
    async (operationId) => {
      const scenario = scenarios[operationId];
      if (!scenario)
        throw new Error(`No audit-coverage scenario for mutating route ${operationId}: add one to this file`);
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
