/** POST /api/sboms/upload with the SBOM file itself as the body (issue 10 item 4, docs/sbom-formats.md "Raw bodies"). */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { rawUploadRequest } from '../../shared/client/upload-body';
import { createTeamWithKey, uniqueSlug } from '../support/factories';
import { baseUrl, request } from '../support/http-client';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/sboms');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const fixture = (file: string) => readFileSync(join(FIXTURES, file));

async function release() {
  const team = await createTeamWithKey();
  const product = (await team.api.post('/api/products', { name: 'Raw upload', slug: uniqueSlug('raw') })).body.data;
  const created = (await team.api.post(`/api/products/${product.id}/releases`, { version: '1.0.0' })).body.data as {
    id: string;
  };
  return { ...team, releaseId: created.id };
}

function upload(key: string, query: Record<string, string>, body: Buffer | string, headers: Record<string, string>) {
  return request('POST', `/api/sboms/upload?${new URLSearchParams(query).toString()}`, { key, rawBody: body, headers });
}

/** Concatenated gzip members of 16 MiB of zeros each: 1 GiB when inflated, about 1 MB on the wire. */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: 64 }, () => member));
}

describe('raw SBOM bodies on POST /api/sboms/upload', () => {
  it.each([
    ['cyclonedx-1.6_npm_cyclonedx-npm_demo-bundled-deps.json', 'application/vnd.cyclonedx+json', 'CycloneDX', 52],
    ['cyclonedx-1.5_maven_cdxgen_vuln-spring.json', 'application/json', 'CycloneDX', 88],
    ['handmade_spdx-2.3_describes-relationship.json', 'application/spdx+json', 'SPDX', 7],
    ['spdx-2.2_deb_k8s-bom_nginx-image.spdx', 'text/spdx', 'SPDX', -1],
    [
      'cyclonedx-1.4_maven_cyclonedx-maven-plugin-2.7.10_hadoop-aliyun-3.4.1.xml',
      'application/vnd.cyclonedx+xml',
      'CycloneDX',
      96,
    ],
  ])('stores %s sent as %s byte for byte and scans it', async (file, contentType, format, count) => {
    const { key, api, releaseId } = await release();
    const bytes = fixture(file);
    const response = await upload(key, { releaseId, fileName: file }, bytes, {
      'Content-Type': `${contentType}; charset=utf-8`,
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      releaseId,
      format,
      file_name: file,
      file_hash: sha256(bytes),
      file_size: bytes.length,
    });
    if (count >= 0) expect(response.body.data.component_count).toBe(count);
    const download = await request('GET', `/api/sboms/${response.body.data.id}/download`, { key });
    expect(Buffer.from(download.text, 'utf8').equals(bytes)).toBe(true);
    expect(download.headers.get('x-content-hash')).toBe(sha256(bytes));
    expect((await api.post('/api/cve-scan', { sbomId: response.body.data.id })).status).toBe(202);
    expect((await api.get(`/api/sboms/${response.body.data.id}/vulnerabilities?perPage=10`)).status).toBe(200);
  });

  it('takes a gzip body as the client helper builds it and stores the decompressed file', async () => {
    const { key, releaseId } = await release();
    const path = join(FIXTURES, 'handmade_spdx-2.3_flat-describes-log4j.json');
    const { query, headers, body, fileBytes, fitsDirectUpload } = rawUploadRequest({ path }, releaseId);
    expect(headers).toEqual({ 'Content-Type': 'application/spdx+json', 'Content-Encoding': 'gzip' });
    expect(fitsDirectUpload).toBe(true);
    const response = await upload(key, query, body, headers);
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      format: 'SPDX',
      file_name: 'handmade_spdx-2.3_flat-describes-log4j.json',
      file_size: fileBytes,
      file_hash: sha256(readFileSync(path)),
    });
  });

  it('keeps bytes a JSON re-serialisation would change (BOM, CRLF, key order, trailing spaces)', async () => {
    const { key, releaseId } = await release();
    const bytes = Buffer.from(
      `\uFEFF{ "specVersion": "1.5",\r\n  "bomFormat": "CycloneDX", "version": 1,\r\n  "components": [ { "type": "library", "name": "left-pad", "version": "1.0.0", "purl": "pkg:npm/left-pad@1.0.0" } ] }  \r\n`,
      'utf8',
    );
    const response = await upload(key, { releaseId }, gzipSync(bytes), {
      'Content-Type': 'application/vnd.cyclonedx+json',
      'Content-Encoding': 'gzip',
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({ component_count: 1, file_name: null, file_hash: sha256(bytes) });
    // Read as bytes: the test client would parse the JSON body, which the BOM makes invalid for JSON.parse.
    const download = await fetch(`${baseUrl()}/api/sboms/${response.body.data.id}/download`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('leaves the JSON envelope unchanged; the same bytes raw afterwards are the stored SBOM (200)', async () => {
    const { key, api, releaseId } = await release();
    const content = fixture('handmade_cyclonedx-1.4_shared-bom-ref.json').toString('utf8');
    const envelope = await api.post('/api/sboms/upload', { releaseId, content, fileName: 'bom.json' });
    expect(envelope.status).toBe(201);
    expect(envelope.body.data.file_hash).toBe(sha256(Buffer.from(content, 'utf8')));
    const raw = await upload(key, { releaseId, fileName: 'bom.json' }, content, {
      'Content-Type': 'application/vnd.cyclonedx+json',
    });
    expect(raw.status).toBe(200);
    expect(raw.body.data.id).toBe(envelope.body.data.id);
  });

  it('refuses a gzip bomb with 413 and stores nothing', async () => {
    const { key, api, releaseId } = await release();
    const response = await upload(key, { releaseId }, gzipBomb(), {
      'Content-Type': 'application/vnd.cyclonedx+json',
      'Content-Encoding': 'gzip',
    });
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({
      code: 'payload_too_large',
      message: expect.stringContaining('Decompressed request body exceeds'),
    });
    expect((await api.get(`/api/releases/${releaseId}/sboms?perPage=10`)).body.data).toEqual([]);
  });

  it('refuses a decompressed file over the 10 MB SBOM limit with 413', async () => {
    const { key, releaseId } = await release();
    const padding = ' '.repeat(10 * 1024 * 1024);
    const bytes = Buffer.from(`{"bomFormat":"CycloneDX","specVersion":"1.5","components":[]}${padding}`, 'utf8');
    const response = await upload(key, { releaseId }, gzipSync(bytes), {
      'Content-Type': 'application/vnd.cyclonedx+json',
      'Content-Encoding': 'gzip',
    });
    expect(response.status).toBe(413);
    expect(response.body.error.message).toContain('SBOM content exceeds');
  });

  it('answers 400 naming the problem for a body that is not gzip, or cut off', async () => {
    const { key, releaseId } = await release();
    const notGzip = await upload(key, { releaseId }, fixture('handmade_cyclonedx-1.4_shared-bom-ref.json'), {
      'Content-Type': 'application/vnd.cyclonedx+json',
      'Content-Encoding': 'gzip',
    });
    expect(notGzip.status).toBe(400);
    expect(notGzip.body.error.message).toBe(
      'Request body is not valid gzip data (Content-Encoding: gzip): incorrect header check',
    );
    const truncated = gzipSync(fixture('handmade_cyclonedx-1.4_shared-bom-ref.json')).subarray(0, 40);
    const cut = await upload(key, { releaseId }, truncated, {
      'Content-Type': 'application/vnd.cyclonedx+json',
      'Content-Encoding': 'gzip',
    });
    expect(cut.status).toBe(400);
    expect(cut.body.error.message).toBe(
      'Request body is not valid gzip data (Content-Encoding: gzip): unexpected end of file',
    );
  });

  it('answers 422 naming the releaseId query parameter when a raw SBOM comes without it', async () => {
    const { key } = await release();
    const bytes = fixture('handmade_cyclonedx-1.4_shared-bom-ref.json');
    for (const contentType of ['application/vnd.cyclonedx+json', 'application/json']) {
      const response = await request('POST', '/api/sboms/upload', {
        key,
        rawBody: bytes,
        headers: { 'Content-Type': contentType },
      });
      expect(response.status).toBe(422);
      expect(response.body.error.message).toContain('?releaseId=');
      expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'releaseId' })]);
    }
  });

  it('answers 415 naming the accepted types for another Content-Type', async () => {
    const { key, releaseId } = await release();
    for (const contentType of ['application/x-www-form-urlencoded', 'text/csv']) {
      const response = await upload(key, { releaseId }, fixture('handmade_cyclonedx-1.4_shared-bom-ref.json'), {
        'Content-Type': contentType,
      });
      expect(response.status).toBe(415);
      expect(response.body.error).toMatchObject({
        code: 'unsupported_media_type',
        message: expect.stringContaining('application/vnd.cyclonedx+json'),
      });
    }
  });

  it('answers 422 for an empty raw body, a bad releaseId, a fileName query beside the envelope, and an unknown release as 404', async () => {
    const { key, api, releaseId } = await release();
    expect((await upload(key, { releaseId }, '', { 'Content-Type': 'application/vnd.cyclonedx+json' })).status).toBe(
      422,
    );
    const badId = await upload(key, { releaseId: 'not-a-uuid' }, '{}', { 'Content-Type': 'application/json' });
    expect(badId.status).toBe(422);
    expect(badId.body.error.details[0].path).toBe('releaseId');
    const content = fixture('handmade_cyclonedx-1.4_shared-bom-ref.json').toString('utf8');
    const stray = await request('POST', '/api/sboms/upload?fileName=x.json', { key, body: { releaseId, content } });
    expect(stray.status).toBe(422);
    expect(stray.body.error.details[0].path).toBe('fileName');
    expect(
      (
        await upload(key, { releaseId: '00000000-0000-4000-8000-000000000000' }, content, {
          'Content-Type': 'application/json',
        })
      ).status,
    ).toBe(404);
    expect((await api.get(`/api/releases/${releaseId}/sboms?perPage=10`)).body.data).toEqual([]);
  });

  it('answers 422 sbom_rejected for a raw body that is no SBOM', async () => {
    const { key, releaseId } = await release();
    const response = await upload(key, { releaseId }, JSON.stringify({ releaseId, content: '{}' }), {
      'Content-Type': 'application/json',
    });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('sbom_rejected');
  });
});
