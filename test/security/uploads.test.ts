/**
 * The pre-signed SBOM upload (docs/security.md, docs/api.md "Large uploads"): the PUT URL is signed for
 * the file size declared when the session starts, so the bucket takes no other length; completing reads
 * the object that was checked (its ETag, `If-Match`) and never more than the size limit, so the object
 * cannot be swapped for a larger one between the check and the read.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { readObjectBytes, s3Client, s3ErrorStatus } from '../../shared/service/aws-s3';
import { config } from '../../shared/service/config';
import { keys } from '../../shared/service/data/keys';
import { MAX_SBOM_BYTES } from '../../shared/service/sboms/sbom-limits';
import { createTeamWithKey } from '../support/factories';
import { cycloneDxSbom } from '../support/seed';

type Api = Awaited<ReturnType<typeof createTeamWithKey>>['api'];

async function releaseOf(api: Api): Promise<string> {
  const product = await api.post('/api/products', {
    name: 'Uploads',
    slug: `uploads-${randomUUID().replace(/[^a-f]/g, '')}`,
  });
  const release = await api.post(`/api/products/${product.body.data.id}/releases`, { version: '1.0.0' });
  expect(release.status).toBe(201);
  return release.body.data.id as string;
}

function sbomBytes(): Buffer {
  return Buffer.from(cycloneDxSbom([{ name: 'left-pad', version: '1.0.0', purl: 'pkg:npm/left-pad@1.0.0' }]));
}

describe('the pre-signed upload URL', () => {
  it('needs the file size up front and refuses one over the limit at once', async () => {
    const { api } = await createTeamWithKey();
    const releaseId = await releaseOf(api);
    const withoutSize = await api.post('/api/sboms/uploads', { releaseId });
    expect(withoutSize.status).toBe(422);
    expect(JSON.stringify(withoutSize.body.error.details)).toContain('size');
    expect((await api.post('/api/sboms/uploads', { releaseId, size: 0 })).status).toBe(422);
    const tooLarge = await api.post('/api/sboms/uploads', { releaseId, size: MAX_SBOM_BYTES + 1 });
    expect(tooLarge.status).toBe(413);
  });

  it('takes exactly the declared size: a longer, a shorter or an unsized (chunked) body is refused', async () => {
    const { api, teamId } = await createTeamWithKey();
    const releaseId = await releaseOf(api);
    const content = sbomBytes();
    const session = await api.post('/api/sboms/uploads', { releaseId, size: content.length });
    expect(session.status).toBe(201);
    const { uploadId, uploadUrl, completePath } = session.body.data as {
      uploadId: string;
      uploadUrl: string;
      completePath: string;
    };
    expect(new URL(uploadUrl).searchParams.get('X-Amz-SignedHeaders')?.split(';')).toContain('content-length');

    const longer = Buffer.concat([content, Buffer.alloc(1024 * 1024, 0x20)]);
    expect((await fetch(uploadUrl, { method: 'PUT', body: longer })).status).toBe(403);
    expect((await fetch(uploadUrl, { method: 'PUT', body: content.subarray(1) })).status).toBe(403);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(longer));
        controller.close();
      },
    });
    expect((await fetch(uploadUrl, { method: 'PUT', body: chunked, duplex: 'half' })).status).toBe(403);
    // Nothing was stored by the refused PUTs.
    const stored = (await s3Client()).send(
      new HeadObjectCommand({ Bucket: config().sbomBucket, Key: keys.sbomUploadObject(teamId, uploadId) }),
    );
    await expect(stored).rejects.toMatchObject({ name: 'NotFound' });

    expect((await fetch(uploadUrl, { method: 'PUT', body: content })).status).toBe(200);
    const completed = await api.post(completePath);
    expect(completed.status).toBe(201);
    expect(completed.body.data.component_count).toBe(1);
  });
});

describe('reading an uploaded object', () => {
  async function stage(body: Buffer): Promise<{ key: string; etag: string }> {
    const key = `security-tests/${randomUUID()}`;
    const put = await (
      await s3Client()
    ).send(new PutObjectCommand({ Bucket: config().sbomBucket, Key: key, Body: body }));
    return { key, etag: put.ETag ?? '' };
  }

  it('the embedded S3 honours If-Match on GET, as S3 does (412 for another ETag)', async () => {
    const { key, etag } = await stage(Buffer.from('first'));
    const client = await s3Client();
    const matching = await client.send(new GetObjectCommand({ Bucket: config().sbomBucket, Key: key, IfMatch: etag }));
    expect(await matching.Body?.transformToString()).toBe('first');
    const stale = client.send(new GetObjectCommand({ Bucket: config().sbomBucket, Key: key, IfMatch: '"0123"' }));
    await expect(stale).rejects.toMatchObject({ name: 'PreconditionFailed' });
    expect(s3ErrorStatus(await stale.catch((error: unknown) => error))).toBe(412);
  });

  it('reads the checked object only: replaced after the check, the read fails instead of taking the new bytes', async () => {
    const { key, etag } = await stage(Buffer.from('checked'));
    await stage(Buffer.from('x')); // another key: the first stays
    await (
      await s3Client()
    ).send(new PutObjectCommand({ Bucket: config().sbomBucket, Key: key, Body: Buffer.alloc(4096, 0x41) }));
    await expect(readObjectBytes({ Bucket: config().sbomBucket, Key: key, IfMatch: etag }, 1024)).rejects.toMatchObject(
      { name: 'PreconditionFailed' },
    );
  });

  it('stops reading at the byte ceiling', async () => {
    const { key, etag } = await stage(Buffer.alloc(64 * 1024, 0x41));
    await expect(readObjectBytes({ Bucket: config().sbomBucket, Key: key, IfMatch: etag }, 1024)).rejects.toThrow(
      /more than 1024 bytes/,
    );
    const bytes = await readObjectBytes({ Bucket: config().sbomBucket, Key: key, IfMatch: etag }, 64 * 1024);
    expect(bytes.length).toBe(64 * 1024);
  });
});
