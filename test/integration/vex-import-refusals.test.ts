/** VEX imports refused: schema-invalid (422) and oversized (413) documents, a locked release (409), all or nothing under a lock. */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { keys } from '../../shared/service/data/keys';
import { queryAll, queryPages } from '../../shared/service/data/table-client';
import { readAuditLog } from '../../shared/service/audit/audit-read';
import { createTeamWithKey } from '../support/factories';
import { seedReleaseWithFindings } from '../support/seed';
import { importVex, newProduct, releaseWithSbom, vexExample } from '../support/vex-imports';

describe('POST /api/releases/{releaseId}/vex-imports', () => {
  it('answers 422 with the failing JSON pointers for a schema-invalid document and writes nothing', async () => {
    const { api, key, teamId } = await createTeamWithKey();
    const product = await newProduct(api);
    const { release } = await releaseWithSbom(api, product.id, '1.0.0');
    const document = JSON.parse(vexExample('openvex/trivy.openvex.json').toString('utf8'));
    document.statements[6].status = 'probably_fine';
    delete document.author;

    const response = await importVex(key, release.id, JSON.stringify(document));
    const unknown = await importVex(key, release.id, JSON.stringify({ hello: 'world' }));
    const xml = await importVex(
      key,
      release.id,
      '<bom xmlns="http://cyclonedx.org/schema/bom/1.6"/>',
      'application/vnd.cyclonedx+xml',
    );
    const broken = await importVex(key, release.id, '{"bomFormat":');

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/statements/6/status', code: 'enum' }),
        expect.objectContaining({ path: '/', code: 'required' }),
      ]),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([expect.objectContaining({ path: '/', code: 'unknown_format' })]);
    expect(xml.status).toBe(415);
    expect(broken.status).toBe(400);
    const children = await queryAll(keys.releaseChildrenPrefix(teamId, product.id, release.id));
    expect(children.filter((item) => item.entity === 'Disposition')).toEqual([]);
  });

  it('answers 413 for a document over 10 MB, gzip-compressed or not', async () => {
    const team = await createTeamWithKey();
    const product = await newProduct(team.api);
    const release = (await team.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data as {
      id: string;
    };
    const oversized = `{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,"x":"${'a'.repeat(10 * 1024 * 1024)}"}`;

    const plain = await importVex(team.key, release.id, oversized);
    const gzipped = await importVex(team.key, release.id, gzipSync(oversized), 'application/json', {
      'Content-Encoding': 'gzip',
    });

    expect(plain.status).toBe(413);
    expect(gzipped.status).toBe(413);
    expect(gzipped.body.error.code).toBe('payload_too_large');
  });

  it('is refused with 409 release_locked while the release is locked, and writes nothing', async () => {
    const { api, key, teamId } = await createTeamWithKey();
    const product = await newProduct(api);
    const { release } = await releaseWithSbom(api, product.id, '1.0.0');
    const document = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    expect((await api.post(`/api/vex/${document.id}/submit`, {})).status).toBe(200);

    const response = await importVex(key, release.id, vexExample('openvex/trivy.openvex.json'));

    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('release_locked');
    const children = await queryAll(keys.releaseChildrenPrefix(teamId, product.id, release.id));
    expect(children.filter((item) => item.entity === 'Disposition')).toEqual([]);
    expect((await readAuditLog(teamId)).filter((entry) => entry.action === 'vex_import')).toEqual([]);
  });

  it('undoes every write when a lock lands in the middle of a large import (all or nothing)', async () => {
    // Arrange: 600 findings (38 chunks of the batch path) and an OpenVEX document deciding every one of them.
    // Enough chunks that the lock lands while most are still to come, even when a loaded machine slows the probe.
    const { api, key, teamId } = await createTeamWithKey();
    const { findings, release, product } = await seedReleaseWithFindings(api, teamId, 600);
    const purlOf = (name: string, index: number) => `pkg:npm/${name}@1.${index}.0`;
    const document = {
      '@context': 'https://openvex.dev/ns/v0.2.0',
      '@id': 'https://example.com/vex/large',
      author: 'Supplier',
      timestamp: '2026-01-01T00:00:00Z',
      version: 1,
      statements: findings.map((finding, index) => ({
        vulnerability: { name: finding.cveId },
        products: [{ '@id': purlOf(finding.componentName, index) }],
        status: 'not_affected',
        justification: 'component_not_present',
      })),
    };
    const vex = (await api.post(`/api/releases/${release.id}/vex`, { format: 'openvex' })).body.data;
    const written = async () =>
      (await queryAll(keys.releaseChildrenPrefix(teamId, product.id, release.id))).filter(
        (item) => item.entity === 'Disposition',
      ).length;

    // Act: the import starts; once its first chunk is in, a submit locks the release.
    const answer = importVex(key, release.id, JSON.stringify(document));
    let answered = false;
    void answer.finally(() => {
      answered = true;
    });
    // The probe reads one item: a full count of 1,200 release children per poll let the import run ahead.
    const anyWritten = async () => {
      const first = await queryPages({ ...keys.dispositionPrefix(teamId, product.id, release.id), pageSize: 1 }).next();
      return (first.value?.length ?? 0) > 0;
    };
    while (!answered && !(await anyWritten())) await new Promise((done) => setTimeout(done, 5));
    const submitted = await api.post(`/api/vex/${vex.id}/submit`, {});
    const response = await answer;

    // Assert
    expect(submitted.status).toBe(200);
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('release_locked');
    expect(await written()).toBe(0);
    expect(await queryAll(keys.dispositionBatchPendingPrefix(teamId))).toEqual([]);
    const audit = await readAuditLog(teamId);
    // Writes did happen before the lock, and each was undone.
    expect(
      audit.filter((entry) => entry.entityType === 'disposition' && entry.action === 'rollback').length,
    ).toBeGreaterThan(0);
    expect(audit.filter((entry) => entry.action === 'vex_import')).toEqual([]);
  });
});
