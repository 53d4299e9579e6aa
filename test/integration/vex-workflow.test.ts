import { describe, expect, it } from '@jest/globals';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../shared/service/aws-s3';
import { config } from '../../shared/service/config';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { keys } from '../../shared/service/data/keys';
import { disclosureSlug } from '../../shared/service/disclosures/disclosures';
import { queryAll } from '../../shared/service/data/table-client';
import { bucketDefinitions } from '../../shared/service/data/table-definition';
import { TEST_SIGNING_KEY } from '../support/global-setup';
import { OPERATOR_ACTOR } from '../../shared/service/identity/actor';
import { Members } from '../../shared/service/identity/teams';
import { createTeamWithKey, addKey } from '../support/factories';
import { request } from '../support/http-client';
import { seedReleaseWithFindings } from '../support/seed';
import { runCsafMandatoryTests, vexSchemaValidator } from '../support/schema-validation';

/** A release whose findings cover all four statuses plus an untriaged one. */
async function triagedRelease() {
  const team = await createTeamWithKey();
  const seeded = await seedReleaseWithFindings(team.api, team.teamId, 5);
  const [affected, notAffected, fixed, investigating] = seeded.findings;
  await team.api.post('/api/dispositions', {
    vulnerabilityId: affected!.id,
    status: 'affected',
    response: 'update',
    actionStatement: 'Upgrade to 2.0.0',
  });
  await team.api.post('/api/dispositions', {
    vulnerabilityId: notAffected!.id,
    status: 'not_affected',
    justification: 'vulnerable_code_not_in_execute_path',
    impactStatement: 'Never called',
  });
  await team.api.post('/api/dispositions', { vulnerabilityId: fixed!.id, status: 'fixed' });
  await team.api.post('/api/dispositions', { vulnerabilityId: investigating!.id, status: 'under_investigation' });
  return { ...team, ...seeded };
}

async function approvedDocument(format = 'openvex') {
  const context = await triagedRelease();
  const document = (await context.api.post(`/api/releases/${context.release.id}/vex`, { format, author: 'PSIRT' })).body
    .data;
  expect((await context.api.post(`/api/vex/${document.id}/submit`, { comment: 'ready' })).status).toBe(200);
  expect((await context.api.post(`/api/vex/${document.id}/approve`, {})).status).toBe(200);
  return { ...context, document };
}

describe('VEX documents', () => {
  it.each(['cyclonedx_vex', 'openvex', 'csaf'] as const)(
    'generates a schema-valid %s draft from findings in all four statuses',
    async (format) => {
      const { api, release } = await triagedRelease();
      const response = await api.post(`/api/releases/${release.id}/vex`, { format, author: 'PSIRT' });
      expect(response.status).toBe(201);
      expect(response.body.data).toMatchObject({
        workflow_status: 'draft',
        format,
        version: 1,
        author: 'PSIRT',
        finding_count: 5,
      });
      const validation = vexSchemaValidator().validate(format, response.body.data.content);
      expect(validation.errors).toEqual([]);
      if (format === 'csaf') {
        const report = await runCsafMandatoryTests(response.body.data.content);
        expect(report.failures).toEqual([]);
      }
      const read = await api.get(`/api/vex/${response.body.data.id}`);
      expect(read.body.data.content).toEqual(response.body.data.content);
      const list = await api.get(`/api/releases/${release.id}/vex`);
      expect(list.body.data.map((document: { id: string }) => document.id)).toContain(response.body.data.id);
    },
  );

  it('names the release by its artifact purl, so scanners can apply the statements', async () => {
    const { api, release } = await triagedRelease();
    const purl = 'pkg:oci/seeded-app@sha256%3A0123abcd?repository_url=ghcr.io/acme/seeded-app';
    expect((await api.put(`/api/releases/${release.id}`, { purl })).status).toBe(200);
    const openvex = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data.content;
    expect(
      openvex.statements.every((statement: { products: { '@id': string }[] }) =>
        statement.products.some((product) => product['@id'] === purl),
      ),
    ).toBe(true);
  });

  it('rejects an unknown format and an over-long author with 422', async () => {
    const { api, release } = await triagedRelease();
    expect((await api.post(`/api/releases/${release.id}/vex`, { format: 'spdx' })).status).toBe(422);
    expect(
      (await api.post(`/api/releases/${release.id}/vex`, { format: 'csaf', author: 'a'.repeat(256) })).status,
    ).toBe(422);
  });

  it('regenerates a draft with version + 1 and deletes a draft', async () => {
    const { api, release } = await triagedRelease();
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'cyclonedx_vex' })).body.data;
    const regenerated = await api.post(`/api/vex/${document.id}/regenerate`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.data.version).toBe(2);
    expect((await api.delete(`/api/vex/${document.id}`)).status).toBe(204);
    expect((await api.get(`/api/vex/${document.id}`)).status).toBe(404);
  });

  it('locks the release chain on submit: release and disposition writes answer 409', async () => {
    const { api, release, findings, document } = await approvedDocument();
    expect((await api.get(`/api/releases/${release.id}`)).body.data.is_locked).toBe(true);
    expect((await api.put(`/api/releases/${release.id}`, { name: 'late change' })).status).toBe(409);
    const disposition = (await api.get(`/api/sboms/${findings[0]!.sbomId}`)).status;
    expect(disposition).toBe(200);
    const late = await api.post('/api/dispositions', { vulnerabilityId: findings[4]!.id, status: 'fixed' });
    expect(late.status).toBe(409);
    const batch = await api.post('/api/dispositions/batch', { vulnerabilityIds: [findings[4]!.id], status: 'fixed' });
    expect(batch.status).toBe(409);
    expect((await api.delete(`/api/vex/${document.id}`)).status).toBe(409);
    const regenerate = await api.post(`/api/vex/${document.id}/regenerate`);
    expect(regenerate.status).toBe(409);
    expect(regenerate.body.error.message).toContain('"approved"');
    const upload = await api.post('/api/sboms/upload', {
      releaseId: release.id,
      content: '{"bomFormat":"CycloneDX","specVersion":"1.5","components":[]}',
    });
    expect(upload.status).toBe(409);
  });

  it('answers 409 naming the current state for transitions from the wrong state', async () => {
    const { api, release } = await triagedRelease();
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    const approve = await api.post(`/api/vex/${document.id}/approve`, {});
    expect(approve.status).toBe(409);
    expect(approve.body.error.message).toContain('"draft"');
    expect((await api.post(`/api/vex/${document.id}/publish`, {})).status).toBe(409);
    expect((await api.post(`/api/vex/${document.id}/reject`, { comment: 'no' })).status).toBe(409);
  });

  it('requires a 1-5000 character comment to reject, then unlocks the release', async () => {
    const { api, release } = await triagedRelease();
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'csaf' })).body.data;
    await api.post(`/api/vex/${document.id}/submit`);
    expect((await api.post(`/api/vex/${document.id}/reject`, {})).status).toBe(422);
    expect((await api.post(`/api/vex/${document.id}/reject`, { comment: '' })).status).toBe(422);
    expect((await api.post(`/api/vex/${document.id}/reject`, { comment: 'x'.repeat(5001) })).status).toBe(422);
    const rejected = await api.post(`/api/vex/${document.id}/reject`, { comment: 'Missing triage for lib3' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data.workflow_status).toBe('draft');
    expect((await api.get(`/api/releases/${release.id}`)).body.data.is_locked).toBe(false);
    const approvals = (await api.get(`/api/vex/${document.id}/approvals`)).body.data;
    expect(approvals.map((record: { action: string }) => record.action)).toEqual(['submit', 'reject']);
    expect(approvals[1]).toMatchObject({
      comment: 'Missing triage for lib3',
      actor_id: expect.any(String),
      created_at: expect.any(String),
    });
  });

  it("refuses a second document's submit while the release is locked, leaving no partial state", async () => {
    const { api, release, teamId } = await triagedRelease();
    const first = (await api.post(`/api/releases/${release.id}/vex`, { format: 'csaf' })).body.data;
    const second = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    await api.post(`/api/vex/${first.id}/submit`);
    const auditBefore = (await readAuditLog(teamId)).length;
    const refused = await api.post(`/api/vex/${second.id}/submit`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('release_locked');
    expect((await api.get(`/api/vex/${second.id}`)).body.data.workflow_status).toBe('draft');
    expect((await api.get(`/api/vex/${second.id}/approvals`)).body.data).toEqual([]);
    expect((await readAuditLog(teamId)).length).toBe(auditBefore);
  });

  it('enforces the opt-in rule that the approver differs from the submitter', async () => {
    const { api, release, teamId, memberId } = await triagedRelease();
    expect((await api.put('/api/settings', { requireDistinctApprover: true })).status).toBe(200);
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    await api.post(`/api/vex/${document.id}/submit`);
    const self = await api.post(`/api/vex/${document.id}/approve`, {});
    expect(self.status).toBe(403);
    // Another key of the same person is no second pair of eyes (test/security/four-eyes.test.ts); another member's is.
    const sameMember = await addKey(teamId, memberId, ['vex:write', 'vex:read']);
    expect((await sameMember.api.post(`/api/vex/${document.id}/approve`, {})).status).toBe(403);
    const colleague = await Members.add(
      teamId,
      {
        email: `approver-${Date.now()}@example.test`,
        name: 'Approver',
        permissions: ['settings.manage', 'content.write'],
      },
      OPERATOR_ACTOR,
    );
    const approver = await addKey(teamId, colleague.id, ['vex:write', 'vex:read']);
    expect((await approver.api.post(`/api/vex/${document.id}/approve`, {})).status).toBe(200);
  });

  it('unlocks a release held by a submitted document back to draft, audited', async () => {
    const { api, release, teamId } = await triagedRelease();
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    await api.post(`/api/vex/${document.id}/submit`);
    expect((await api.post(`/api/releases/${release.id}/unlock`, {})).status).toBe(422);
    const unlocked = await api.post(`/api/releases/${release.id}/unlock`, { comment: 'Emergency fix' });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.data.is_locked).toBe(false);
    expect((await api.get(`/api/vex/${document.id}`)).body.data.workflow_status).toBe('draft');
    const audit = (await readAuditLog(teamId)).find((entry) => entry.action === 'unlock');
    expect(audit).toMatchObject({ entityType: 'release', entityId: release.id });
    expect((await api.post(`/api/releases/${release.id}/unlock`, { comment: 'again' })).status).toBe(409);
  });
});

describe('VEX documents of another team', () => {
  it('answer 404 on every route, exactly like unknown ids', async () => {
    const { api, release } = await triagedRelease();
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    const intruder = await createTeamWithKey();
    expect((await intruder.api.get(`/api/releases/${release.id}/vex`)).status).toBe(404);
    expect((await intruder.api.post(`/api/releases/${release.id}/vex`, { format: 'csaf' })).status).toBe(404);
    expect((await intruder.api.post(`/api/releases/${release.id}/unlock`, { comment: 'x' })).status).toBe(404);
    expect((await intruder.api.get(`/api/vex/${document.id}`)).status).toBe(404);
    expect((await intruder.api.get(`/api/vex/${document.id}/approvals`)).status).toBe(404);
    expect((await intruder.api.delete(`/api/vex/${document.id}`)).status).toBe(404);
    for (const step of ['regenerate', 'submit', 'approve', 'publish'])
      expect((await intruder.api.post(`/api/vex/${document.id}/${step}`, {})).status).toBe(404);
    expect((await intruder.api.post(`/api/vex/${document.id}/reject`, { comment: 'x' })).status).toBe(404);
    expect((await api.get(`/api/vex/${document.id}`)).body.data.workflow_status).toBe('draft');
  });
});

describe('publish and public disclosures', () => {
  it('publishes once: 20 parallel publishes of one approved document give one disclosure', async () => {
    const { api, document } = await approvedDocument('csaf');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api.post(`/api/vex/${document.id}/publish`, { comment: 'go' })),
    );
    const succeeded = results.filter((result) => result.status === 200);
    expect(succeeded).toHaveLength(1);
    expect(results.filter((result) => result.status === 409)).toHaveLength(19);
    const { vexDocument, disclosure } = succeeded[0]!.body;
    expect(vexDocument.workflow_status).toBe('published');
    const snapshots = await queryAll(keys.disclosureOfDocumentPrefix(document.id));
    expect(snapshots).toHaveLength(1);
    expect(disclosure.public_slug).toBe(snapshots[0]!.slug);
    const approvals = (await api.get(`/api/vex/${document.id}/approvals`)).body.data;
    expect(approvals.map((record: { action: string }) => record.action)).toEqual(['submit', 'approve', 'publish']);
  });

  it('reads back a snapshot already stored for the version and refuses to publish over different bytes (409), leaving the document approved', async () => {
    const { api, product, release, document } = await approvedDocument('openvex');
    // What a crash (or another writer) between the snapshot write and the publish transaction leaves behind, with other bytes.
    const slug = disclosureSlug(product.slug, release.version, 'openvex', document.id, document.version);
    await (
      await s3Client()
    ).send(
      new PutObjectCommand({
        Bucket: config().disclosureBucket,
        Key: keys.disclosureObject(slug),
        Body: '{"not":"this document"}',
      }),
    );

    const publish = await api.post(`/api/vex/${document.id}/publish`, {});

    expect(publish.status).toBe(409);
    expect(publish.body.error.code).toBe('snapshot_exists');
    expect((await api.get(`/api/vex/${document.id}`)).body.data.workflow_status).toBe('approved');
    expect((await request('GET', `/api/disclosures/${slug}`)).status).toBe(404);
  });

  it('serves the disclosure without credentials: json, raw bytes with hash and signature, verify', async () => {
    const { api, document } = await approvedDocument('cyclonedx_vex');
    const { disclosure } = (await api.post(`/api/vex/${document.id}/publish`, {})).body;
    const slug = disclosure.public_slug as string;

    const raw = await request('GET', `/api/disclosures/${slug}?format=raw`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('application/vnd.cyclonedx+json');
    expect(raw.headers.get('access-control-allow-origin')).toBe('*');
    expect(raw.headers.get('cache-control')).toContain('immutable');
    const bytes = Buffer.from(raw.text, 'utf8');
    const hash = createHash('sha256').update(bytes).digest('hex');
    expect(raw.headers.get('x-content-hash')).toBe(hash);
    expect(disclosure.content_hash).toBe(`sha256:${hash}`);
    expect(raw.headers.get('x-content-signature')).toBe(
      createHmac('sha256', TEST_SIGNING_KEY).update(bytes).digest('hex'),
    );
    expect(vexSchemaValidator().validate('cyclonedx_vex', JSON.parse(raw.text)).errors).toEqual([]);

    const json = await request('GET', `/api/disclosures/${slug}`);
    expect(json.status).toBe(200);
    expect(json.body.data).toMatchObject({
      public_slug: slug,
      format: 'cyclonedx_vex',
      version: document.version,
      document_id: document.id,
      product: { name: 'Seeded <App>', vendor: 'ACME Corp' },
      release: { version: '1.0.0' },
    });
    expect(json.body.data.snapshots).toHaveLength(1);
    expect(json.body.data.content).toEqual(JSON.parse(raw.text));

    const verify = await request('GET', `/api/disclosures/${slug}/verify`);
    expect(verify.body).toMatchObject({
      public_slug: slug,
      content_hash: `sha256:${hash}`,
      signed: true,
      signature_valid: true,
    });
    expect((await request('GET', '/api/disclosures/no-such-slug')).status).toBe(404);
  });

  it('reports signature_valid false when the stored bytes are tampered with', async () => {
    const { api, document } = await approvedDocument('openvex');
    const { disclosure } = (await api.post(`/api/vex/${document.id}/publish`, {})).body;
    const dataDir = process.env.VEXDESK_TEST_DATA_DIR!;
    const objectFile = join(
      dataDir,
      's3',
      bucketDefinitions.disclosure.localBucketName,
      'disclosures',
      disclosure.public_slug,
      'content._S3rver_object',
    );
    const original = readFileSync(objectFile, 'utf8');
    writeFileSync(objectFile, original.replace('"under_investigation"', '"not_affected"'));
    const verify = await request('GET', `/api/disclosures/${disclosure.public_slug}/verify`);
    expect(verify.body).toMatchObject({ signed: true, signature_valid: false, content_hash_valid: false });
  });

  it('lists disclosures with meta and relative links, filtered by format', async () => {
    const { api, document } = await approvedDocument('openvex');
    await api.post(`/api/vex/${document.id}/publish`, {});
    const list = await request('GET', '/api/disclosures?limit=2');
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ page: 1, limit: 2, hasPrevPage: false });
    expect(list.body.meta.total).toBeGreaterThanOrEqual(1);
    expect(list.body.links.self).toBe('/api/disclosures?page=1&limit=2');
    expect(list.body.links.first).toBe('/api/disclosures?page=1&limit=2');
    expect(list.body.data[0].content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const openvexOnly = await request('GET', '/api/disclosures?format=openvex&limit=100');
    expect(openvexOnly.body.data.every((entry: { format: string }) => entry.format === 'openvex')).toBe(true);
    expect((await request('GET', '/api/disclosures?limit=101')).status).toBe(422);
    expect((await request('GET', '/api/disclosures?format=pdf')).status).toBe(422);
  });

  it('keeps published disclosures when the product is deleted', async () => {
    const { api, document, product } = await approvedDocument('csaf');
    const { disclosure } = (await api.post(`/api/vex/${document.id}/publish`, {})).body;
    expect((await api.delete(`/api/products/${product.id}`)).status).toBe(204);
    expect((await request('GET', `/api/disclosures/${disclosure.public_slug}?format=raw`)).status).toBe(200);
    expect((await api.get(`/api/vex/${document.id}`)).status).toBe(404);
  });
});

describe('disposition writes racing a submit', () => {
  it('accepts none after the submit commits', async () => {
    const { api, release, findings, teamId } = await triagedRelease();
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    const target = findings[4]!.id;
    const writes = Array.from({ length: 30 }, (_, index) =>
      api.post('/api/dispositions', {
        vulnerabilityId: target,
        status: 'affected',
        response: 'update',
        detail: `write ${index}`,
      }),
    );
    const submit = api.post(`/api/vex/${document.id}/submit`);
    const [submitted, ...results] = await Promise.all([submit, ...writes]);
    expect(submitted.status).toBe(200);
    const accepted = results.filter((result) => result.status === 200 || result.status === 201).length;
    expect(results.every((result) => [200, 201, 409].includes(result.status))).toBe(true);
    const lockedAt = (await api.get(`/api/releases/${release.id}`)).body.data.updated_at;
    expect(lockedAt).toBeTruthy();
    // Every accepted write left exactly one history entry, and all of them precede the lock.
    const disposition = (await queryAll(keys.dispositionPrefix(teamId, release.productId, release.id))).find(
      (item) => item.vulnerabilityId === target,
    );
    const history = disposition
      ? await queryAll(
          keys.dispositionHistoryPrefix(teamId, release.productId, release.id, String(disposition.decisionKey)),
        )
      : [];
    expect(history).toHaveLength(accepted);
    const after = await api.post('/api/dispositions', { vulnerabilityId: target, status: 'fixed' });
    expect(after.status).toBe(409);
  });
});
