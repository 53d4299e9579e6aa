/**
 * Real answers of the routes whose shapes the OpenAPI document (and so the console and the CLI) takes from
 * the route table: VEX documents and approvals, dispositions, disclosures, settings, the scan, the upload
 * session and the document itself, each parsed with the schema its route publishes. Parsing drops what a
 * schema does not name, so comparing the parse with the body also fails on a field the handler writes
 * and the schema leaves out. Fields the spec names are checked by name and type on top.
 */
import { describe, expect, it } from '@jest/globals';
import type * as z from 'zod';
import { routes, type RouteDefinition } from '../../shared/service/http/routes';
import { cycloneDxSbom, seedReleaseWithFindings } from '../support/seed';
import { createTeamWithKey } from '../support/factories';
import { request, type HttpResponse } from '../support/http-client';

function schemaOf(operationId: string, status: number, mediaType?: string): z.ZodType {
  const route = (routes as readonly RouteDefinition[]).find((candidate) => candidate.operationId === operationId);
  const response = route?.responses[status];
  const schema = mediaType ? response?.alternatives?.[mediaType] : response?.schema;
  if (!schema) throw new Error(`${operationId} declares no schema for ${status} ${mediaType ?? ''}`);
  return schema;
}

/** The body is what the route's schema says, no field missing, mistyped or left undocumented. */
function expectDocumented(operationId: string, response: HttpResponse, status: number, mediaType?: string) {
  expect({ operationId, status: response.status }).toEqual({ operationId, status });
  const parsed = schemaOf(operationId, status, mediaType).safeParse(response.body);
  expect({ operationId, issues: parsed.error?.issues ?? [] }).toEqual({ operationId, issues: [] });
  expect(parsed.data).toEqual(response.body);
}

const text = expect.any(String);
const integer = expect.any(Number);
const boolean = expect.any(Boolean);
const object = expect.any(Object);

/** Spec "VEX document" and "Approval record". */
const SPEC_VEX_DOCUMENT = { id: text, workflow_status: text, format: text, version: integer };
const SPEC_APPROVAL = { id: text, action: text, actor_id: text, comment: text, created_at: text };
/** Spec "Disclosure (published snapshot)". */
const SPEC_DISCLOSURE = {
  id: text,
  document_id: text,
  version: integer,
  format: text,
  public_slug: text,
  content_hash: text,
  published_at: text,
  product: { name: text, vendor: text },
  release: { version: text },
  links: { self: text, raw: text },
};

/** A release with three findings, two of them decided. */
async function triagedRelease() {
  const team = await createTeamWithKey();
  const seeded = await seedReleaseWithFindings(team.api, team.teamId, 3);
  const [first, second] = seeded.findings;
  await team.api.post('/api/dispositions', {
    vulnerabilityId: first!.id,
    status: 'affected',
    response: 'update',
    actionStatement: 'Upgrade to 2.0.0',
  });
  await team.api.post('/api/dispositions', {
    vulnerabilityId: second!.id,
    status: 'not_affected',
    justification: 'vulnerable_code_not_in_execute_path',
  });
  return { ...team, ...seeded };
}

describe('documented answers', () => {
  it('VEX documents through the workflow, their approvals, the unlock, and the disclosure they publish', async () => {
    const { api, release, sbom, teamId } = await triagedRelease();
    const path = `/api/releases/${release.id}/vex`;

    const created = await api.post(path, { format: 'openvex', author: 'PSIRT', sbomId: sbom.id });
    expectDocumented('createVexDocument', created, 201);
    expect(created.body.data).toMatchObject({ ...SPEC_VEX_DOCUMENT, author: 'PSIRT', content: object });
    const vexId = created.body.data.id as string;

    const read = await api.get(`/api/vex/${vexId}`);
    expectDocumented('getVexDocument', read, 200);
    expect(read.body.data).toMatchObject({ ...SPEC_VEX_DOCUMENT, content: object });
    expectDocumented('regenerateVexDocument', await api.post(`/api/vex/${vexId}/regenerate`), 200);
    expectDocumented('submitVexDocument', await api.post(`/api/vex/${vexId}/submit`, { comment: 'ready' }), 200);
    expectDocumented('approveVexDocument', await api.post(`/api/vex/${vexId}/approve`, {}), 200);

    const published = await api.post(`/api/vex/${vexId}/publish`, {});
    expectDocumented('publishVexDocument', published, 200);
    expect(published.body).toMatchObject({
      vexDocument: { ...SPEC_VEX_DOCUMENT, workflow_status: 'published' },
      disclosure: { id: text, public_slug: text },
    });

    // A second format's document, rejected back to draft.
    const other = (await api.post(path, { format: 'csaf' })).body.data.id as string;
    expectDocumented('submitVexDocument', await api.post(`/api/vex/${other}/submit`, {}), 200);
    const rejected = await api.post(`/api/vex/${other}/reject`, { comment: 'not yet' });
    expectDocumented('rejectVexDocument', rejected, 200);
    expect(rejected.body.data.workflow_status).toBe('draft');

    const listed = await api.get(path);
    expectDocumented('listVexDocuments', listed, 200);
    expect(listed.body.data).toHaveLength(2);

    const unlocked = await api.post(`/api/releases/${release.id}/unlock`, { comment: 'a late fix' });
    expectDocumented('unlockRelease', unlocked, 200);
    expect(unlocked.body.data.is_locked).toBe(false);

    const approvals = await api.get(`/api/vex/${vexId}/approvals`);
    expectDocumented('listVexApprovals', approvals, 200);
    expect(approvals.body.data.map((record: { action: string }) => record.action)).toEqual(
      expect.arrayContaining(['submit', 'approve', 'publish', 'unlock']),
    );
    for (const record of approvals.body.data) expect(record).toMatchObject(SPEC_APPROVAL);

    // The public side of the same publication.
    const slug = published.body.disclosure.public_slug as string;
    const list = await request('GET', '/api/disclosures?limit=5');
    expectDocumented('listDisclosures', list, 200);
    for (const item of list.body.data) expect(item).toMatchObject(SPEC_DISCLOSURE);
    expect(list.body).toMatchObject({
      meta: { page: 1, limit: 5, total: integer, totalPages: integer, hasNextPage: boolean, hasPrevPage: false },
      links: { self: text, first: text, last: text },
    });
    expect(list.body.links).toHaveProperty('next');

    const disclosure = await request('GET', `/api/disclosures/${slug}`);
    expectDocumented('getDisclosure', disclosure, 200);
    expect(disclosure.body.data).toMatchObject({ ...SPEC_DISCLOSURE, content: object });

    const verification = await request('GET', `/api/disclosures/${slug}/verify`);
    expectDocumented('verifyDisclosure', verification, 200);
    expect(verification.body).toMatchObject({
      public_slug: slug,
      content_hash: text,
      signed: true,
      signature_valid: true,
      content_hash_valid: true,
    });

    const keys = `/api/disclosures/publishers/${teamId}/keys`;
    expectDocumented('getPublisherKeys', await request('GET', keys), 200);
    expectDocumented('getPublisherKeys', await request('GET', `${keys}?format=jwks`), 200, 'application/jwk-set+json');
    const armored = await request('GET', `${keys}?format=asc`);
    expect(armored.headers.get('content-type')).toBe('application/pgp-keys');
    expect(schemaOf('getPublisherKeys', 200).safeParse(armored.body).success).toBe(false);
  });

  it('dispositions: created, upserted, updated, read with history, batched and a carried one confirmed', async () => {
    const { api, product, findings } = await triagedRelease();
    const [, , third] = findings;

    const created = await api.post('/api/dispositions', { vulnerabilityId: third!.id, status: 'under_investigation' });
    expectDocumented('upsertDisposition', created, 201);
    expect(created.body.data).toMatchObject({ id: text, status: 'under_investigation', response: null });
    const upserted = await api.post('/api/dispositions', {
      vulnerabilityId: third!.id,
      status: 'not_affected',
      justification: 'component_not_present',
    });
    expectDocumented('upsertDisposition', upserted, 200);

    const dispositionId = created.body.data.id as string;
    const updated = await api.put(`/api/dispositions/${dispositionId}`, { detail: 'Checked the build' });
    expectDocumented('updateDisposition', updated, 200);
    const withHistory = await api.get(`/api/dispositions/${dispositionId}`);
    expectDocumented('getDisposition', withHistory, 200);
    expect(withHistory.body.data.history.length).toBeGreaterThanOrEqual(2);

    const batch = await api.post('/api/dispositions/batch', {
      vulnerabilityIds: findings.map((finding) => finding.id),
      status: 'fixed',
    });
    expectDocumented('batchDispositions', batch, 200);
    expect(batch.body).toEqual({ updated: findings.length });

    // Carried to a release at another package version, the decision waits for review until confirmed.
    expectDocumented('updateTeamSettings', await api.put('/api/settings', { carryOver: 'any_version' }), 200);
    const next = (await api.post(`/api/products/${product.id}/releases`, { version: '2.0.0' })).body.data;
    const name = findings[0]!.componentName;
    const upload = await api.post('/api/sboms/upload', {
      releaseId: next.id,
      content: cycloneDxSbom([{ name, version: '1.0.1', purl: `pkg:npm/${name}@1.0.1` }]),
    });
    expectDocumented('triggerCveScan', await api.post('/api/cve-scan', { sbomId: upload.body.data.id }), 202);
    const carried = (await api.get(`/api/sboms/${upload.body.data.id}/vulnerabilities`)).body.data[0].disposition;
    expect(carried).toMatchObject({ review_required: true, decision_state: 'review_required' });
    const carriedRead = await api.get(`/api/dispositions/${carried.id}`);
    expectDocumented('getDisposition', carriedRead, 200);
    expect(carriedRead.body.data.carried_from).toMatchObject({ decided_by: { id: text, name: text } });
    const confirmed = await api.post(`/api/dispositions/${carried.id}/confirm`, {});
    expectDocumented('confirmDisposition', confirmed, 200);
    expect(confirmed.body.data.review_required).toBe(false);
  });

  it('settings, the scan, a pre-signed upload session and the OpenAPI document', async () => {
    const { api, release, sbom } = await triagedRelease();
    expectDocumented('getTeamSettings', await api.get('/api/settings'), 200);
    const changed = await api.put('/api/settings', {
      requireDistinctApprover: true,
      csafProvider: {
        directory: `acme-${release.id.slice(0, 8)}`,
        publisher: { category: 'vendor', name: 'ACME PSIRT', namespace: 'https://psirt.example.com' },
      },
    });
    expectDocumented('updateTeamSettings', changed, 200);
    expect(changed.body.data.csafProvider).toMatchObject({ providerMetadataUrl: text, wellKnown: boolean });

    const scan = await api.post('/api/cve-scan', { sbomId: sbom.id });
    expectDocumented('triggerCveScan', scan, 202);
    expect(scan.body.data).toMatchObject({ sbomId: sbom.id, status: 'completed', findingCount: 3 });
    expectDocumented('listVulnerabilities', await api.get(`/api/sboms/${sbom.id}/vulnerabilities`), 200);
    expectDocumented('listReleaseVulnerabilities', await api.get(`/api/releases/${release.id}/vulnerabilities`), 200);

    const session = await api.post('/api/sboms/uploads', { releaseId: release.id, fileName: 'bom.json' });
    expectDocumented('createSbomUpload', session, 201);
    expect(session.body.data).toMatchObject({ uploadUrl: text, method: 'PUT', completePath: text });

    const document = await request('GET', '/api/openapi.json');
    expectDocumented('getOpenApiDocument', document, 200);
    expect(document.body.openapi).toBe('3.1.0');
  });
});
