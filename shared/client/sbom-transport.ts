/**
 * How the SBOM file travels (issue 10: "upload the file as it is on disk, gzip on the wire;
 * the pre-signed flow when it would not fit a request"; docs/api.md "Large uploads").
 * `directRequest` is the one place that shapes the direct upload: the file itself as the body
 * (docs/sbom-formats.md "Raw bodies"), so its bytes are stored unchanged, UTF-8 or not.
 */
import type { ApiClient, ApiRequest } from './api-client';
import { DIRECT_UPLOAD_MAX_WIRE_BYTES, rawUploadRequest } from './upload-body';
import { ServiceError } from './errors';
import type { SbomView } from './findings';

export interface SbomFile {
  releaseId: string;
  fileName: string;
  bytes: Buffer;
}

export type UploadRoute = 'auto' | 'direct' | 'presigned';

/** The direct upload's request: path, query, headers and the gzipped body. */
export function directRequest(file: SbomFile): { path: string; request: ApiRequest } {
  const raw = rawUploadRequest({ bytes: file.bytes, fileName: file.fileName }, file.releaseId);
  return {
    path: '/api/sboms/upload',
    request: {
      query: raw.query,
      body: raw.body,
      headers: { 'content-type': raw.headers['Content-Type'], 'content-encoding': raw.headers['Content-Encoding'] },
    },
  };
}

export async function sendSbom(
  api: ApiClient,
  file: SbomFile,
  route: UploadRoute = 'auto',
): Promise<{ sbom: SbomView; created: boolean; route: 'direct' | 'presigned' }> {
  const direct = directRequest(file);
  const size = direct.request.body?.length ?? 0;
  if (route === 'presigned' || (route === 'auto' && size > DIRECT_UPLOAD_MAX_WIRE_BYTES)) {
    return { ...(await sendPresigned(api, file)), route: 'presigned' };
  }
  const { status, body } = await api.request<{ data: SbomView }>('POST', direct.path, direct.request);
  return { sbom: body.data, created: status === 201, route: 'direct' };
}

interface UploadSession {
  uploadId: string;
  uploadUrl: string;
  method: string;
  maxBytes: number;
  completePath: string;
}

/** POST /api/sboms/uploads → PUT the file's bytes to the pre-signed URL → POST the complete path. */
async function sendPresigned(api: ApiClient, file: SbomFile): Promise<{ sbom: SbomView; created: boolean }> {
  // The URL is signed for this exact size.
  const { body } = await api.post<{ data: UploadSession }>('/api/sboms/uploads', {
    releaseId: file.releaseId,
    fileName: file.fileName,
    size: file.bytes.length,
  });
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
  const completed = await api.request<{ data: SbomView }>('POST', session.completePath);
  return { sbom: completed.body.data, created: completed.status === 201 };
}
