/**
 * How the SBOM file travels (the file as it is on disk, gzip on the wire;
 * the pre-signed flow when it would not fit a request; docs/api.md "Large uploads").
 * `sendDirect` is the one place that shapes the direct upload: the file itself as the body
 * (docs/sbom-formats.md "Raw bodies"), so its bytes are stored unchanged, UTF-8 or not.
 */
import { ok, type ApiClient } from './api-client';
import type { Sbom } from './api-types';
import { rawUploadRequest, type RawUploadRequest } from './upload-body';
import { ServiceError } from './errors';

export interface SbomFile {
  releaseId: string;
  fileName: string;
  bytes: Buffer;
}

export type UploadRoute = 'auto' | 'direct' | 'presigned';

interface Sent {
  sbom: Sbom;
  created: boolean;
}

/** The direct upload: the gzipped file as the body of POST /api/sboms/upload, with its media type. */
async function sendDirect(api: ApiClient, raw: RawUploadRequest): Promise<Sent> {
  const { body, status } = await ok(
    api.POST('/api/sboms/upload', {
      params: { query: raw.query },
      headers: { 'content-type': raw.headers['Content-Type'], 'content-encoding': raw.headers['Content-Encoding'] },
      // The document types the body as the SBOM itself (an object or text); on the wire it is the file's
      // own bytes, gzipped, passed through untouched (a JSON serialiser would re-encode them).
      body: raw.body as unknown as string,
      bodySerializer: () => raw.body,
    }),
  );
  return { sbom: body.data, created: status === 201 };
}

export async function sendSbom(
  api: ApiClient,
  file: SbomFile,
  route: UploadRoute = 'auto',
): Promise<Sent & { route: 'direct' | 'presigned' }> {
  const raw = rawUploadRequest({ bytes: file.bytes, fileName: file.fileName }, file.releaseId);
  if (route === 'presigned' || (route === 'auto' && !raw.fitsDirectUpload)) {
    return { ...(await sendPresigned(api, file)), route: 'presigned' };
  }
  return { ...(await sendDirect(api, raw)), route: 'direct' };
}

/** POST /api/sboms/uploads → PUT the file's bytes to the pre-signed URL → POST the complete path. */
async function sendPresigned(api: ApiClient, file: SbomFile): Promise<Sent> {
  // The URL is signed for this exact size.
  const { body } = await ok(
    api.POST('/api/sboms/uploads', {
      body: { releaseId: file.releaseId, fileName: file.fileName, size: file.bytes.length },
    }),
  );
  const session = body.data;
  if (file.bytes.length > session.maxBytes) {
    throw new ServiceError(
      `${file.fileName} is ${file.bytes.length} bytes, more than the ${session.maxBytes} the service accepts`,
      413,
      'payload_too_large',
    );
  }
  let put: Response;
  try {
    // The URL's own signature authorises the PUT: no bearer token goes to the bucket.
    put = await fetch(session.uploadUrl, { method: session.method, body: file.bytes });
  } catch (error) {
    throw new ServiceError(`cannot reach the upload URL: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!put.ok)
    throw new ServiceError(
      `the pre-signed upload answered ${put.status}: ${(await put.text()).slice(0, 200)}`,
      put.status,
    );
  await put.arrayBuffer().catch(() => undefined);
  const completed = await ok(
    api.POST('/api/sboms/uploads/{uploadId}/complete', { params: { path: { uploadId: session.uploadId } } }),
  );
  return { sbom: completed.body.data, created: completed.status === 201 };
}
