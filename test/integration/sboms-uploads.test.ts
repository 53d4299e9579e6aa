/** SBOM uploads: compressed bodies, the pre-signed flow, the formats and sizes refused, download names, other teams. */
import { describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createTeamWithKey } from '../support/factories';
import { request } from '../support/http-client';
import { SBOM_FIXTURES, releaseFor } from '../support/sbom-uploads';
import { cycloneDxSbom } from '../support/seed';

describe('SBOM upload, download and scan', () => {
  it('accepts a gzip-compressed request body', async () => {
    const { key, api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = cycloneDxSbom([{ name: 'left-pad', version: '1.0.0', purl: 'pkg:npm/left-pad@1.0.0' }]);
    const response = await request('POST', '/api/sboms/upload', {
      key,
      rawBody: gzipSync(JSON.stringify({ releaseId: release.id, content })),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(response.status).toBe(201);
    expect(response.body.data.file_hash).toBe(createHash('sha256').update(content).digest('hex'));
  });

  it('supports the pre-signed upload flow against the embedded S3', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = readFileSync(join(SBOM_FIXTURES, 'handmade_spdx-2.3_describes-relationship.json'));
    const session = await api.post('/api/sboms/uploads', {
      releaseId: release.id,
      fileName: 'report-service.spdx.json',
      size: content.length,
    });
    expect(session.status).toBe(201);
    const put = await fetch(session.body.data.uploadUrl, { method: 'PUT', body: content });
    expect(put.status).toBe(200);
    const completed = await api.post(session.body.data.completePath);
    expect(completed.status).toBe(201);
    expect(completed.body.data).toMatchObject({
      format: 'SPDX',
      component_count: 7,
      file_name: 'report-service.spdx.json',
      file_hash: createHash('sha256').update(content).digest('hex'),
    });
    expect((await api.post(session.body.data.completePath)).status).toBe(409);
    const download = await api.get(`/api/sboms/${completed.body.data.id}/download`);
    expect(Buffer.from(download.text).equals(content)).toBe(true);
  });

  it('takes CycloneDX XML through the pre-signed upload flow, served back with its XML media type', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = readFileSync(
      join(SBOM_FIXTURES, 'cyclonedx-1.4_maven_cyclonedx-maven-plugin-2.7.10_hadoop-aliyun-3.4.1.xml'),
    );
    const session = await api.post('/api/sboms/uploads', { releaseId: release.id, size: content.length });
    expect((await fetch(session.body.data.uploadUrl, { method: 'PUT', body: content })).status).toBe(200);
    const completed = await api.post(session.body.data.completePath);
    expect(completed.status).toBe(201);
    expect(completed.body.data).toMatchObject({
      format: 'CycloneDX',
      spec_version: '1.4',
      component_count: 96,
      media_type: 'application/vnd.cyclonedx+xml',
    });
    const download = await api.get(`/api/sboms/${completed.body.data.id}/download`);
    expect(Buffer.from(download.text).equals(content)).toBe(true);
    expect(download.headers.get('content-type')).toBe('application/vnd.cyclonedx+xml');
    expect(download.headers.get('content-disposition')).toContain(`filename="sbom-${completed.body.data.id}.xml"`);
  });

  it('answers a file that is no accepted format with 422 naming the accepted formats', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const response = await api.post('/api/sboms/upload', {
      releaseId: release.id,
      content: 'name,version\nlodash,4.17.20\n',
      fileName: 'deps.csv',
    });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toContain('CycloneDX 1.2-1.7 (JSON or XML), SPDX 2.2/2.3 (JSON or tag-value)');
  });

  it.each([
    ['not JSON', 'this is not json'],
    ['malformed XML', '<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components>'],
    [
      'an XML bomb',
      '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>&b;</name></component></components></bom>',
    ],
    ['tag-value with a broken line', 'SPDXVersion: SPDX-2.3\nSPDXID: SPDXRef-DOCUMENT\nnot a tag line\n'],
    ['a JSON array', '[]'],
    [
      'an unsupported CycloneDX version',
      JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.1', components: [] }),
    ],
    ['CycloneDX without components', JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5' })],
    ['SPDX without packages', JSON.stringify({ spdxVersion: 'SPDX-2.3', SPDXID: 'SPDXRef-DOCUMENT' })],
    ['an unsupported SPDX version', JSON.stringify({ spdxVersion: 'SPDX-2.1', packages: [] })],
    ['an unknown document', JSON.stringify({ hello: 'world' })],
  ])('rejects %s with 422 and a reason', async (_label, content) => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const response = await api.post('/api/sboms/upload', { releaseId: release.id, content });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/SBOM rejected: .+/);
  });

  it('rejects content over 10 MB with 413 and a long file name with 422', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const big = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      components: [],
      padding: 'x'.repeat(10 * 1024 * 1024),
    });
    expect((await api.post('/api/sboms/upload', { releaseId: release.id, content: big })).status).toBe(413);
    const small = cycloneDxSbom([]);
    expect(
      (await api.post('/api/sboms/upload', { releaseId: release.id, content: small, fileName: 'f'.repeat(256) }))
        .status,
    ).toBe(422);
  });

  it('accepts a plain 10 MB body locally', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const components = Array.from({ length: 55_000 }, (_, index) => ({
      name: `pkg${index}`,
      version: '1.0.0',
      purl: `pkg:npm/pkg${index}@1.0.0`,
    }));
    const content = cycloneDxSbom(components);
    expect(Buffer.byteLength(content)).toBeGreaterThan(8 * 1024 * 1024);
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(10 * 1024 * 1024);
    const response = await api.post('/api/sboms/upload', { releaseId: release.id, content });
    expect(response.status).toBe(201);
    expect(response.body.data.component_count).toBe(55_000);
  });

  it('sanitises the download file name (no header injection, RFC 6266 filename*)', async () => {
    const { api } = await createTeamWithKey();
    const release = await releaseFor(api);
    const content = cycloneDxSbom([]);
    // A line break never gets stored: file names are one line.
    const injected = 'évil"\r\nX-Injected: yes;.json';
    expect((await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName: injected })).status).toBe(
      422,
    );
    const fileName = 'évil" X-Injected: yes;\\..%2F.json';
    const sbom = (await api.post('/api/sboms/upload', { releaseId: release.id, content, fileName })).body.data;
    const download = await api.get(`/api/sboms/${sbom.id}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get('x-injected')).toBeNull();
    const disposition = download.headers.get('content-disposition') ?? '';
    expect(disposition).toMatch(/^attachment; filename="[^"\r\n\\%;]*"; filename\*=UTF-8''/);
    expect(disposition).toContain("filename*=UTF-8''%C3%A9vil%22%20X-Injected%3A%20yes%3B_..%252F.json");
  });

  it("returns 404 for another team's release, SBOM, download and vulnerabilities", async () => {
    const owner = await createTeamWithKey();
    const intruder = await createTeamWithKey();
    const release = await releaseFor(owner.api);
    const sbom = (await owner.api.post('/api/sboms/upload', { releaseId: release.id, content: cycloneDxSbom([]) })).body
      .data;
    expect(
      (await intruder.api.post('/api/sboms/upload', { releaseId: release.id, content: cycloneDxSbom([]) })).status,
    ).toBe(404);
    expect((await intruder.api.get(`/api/sboms/${sbom.id}/download`)).status).toBe(404);
    expect((await intruder.api.get(`/api/sboms/${sbom.id}/vulnerabilities`)).status).toBe(404);
    expect((await intruder.api.post('/api/cve-scan', { sbomId: sbom.id })).status).toBe(404);
    expect(
      (await intruder.api.post('/api/sboms/upload', { releaseId: randomUUID(), content: cycloneDxSbom([]) })).status,
    ).toBe(404);
  });
});
