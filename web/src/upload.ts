/**
 * SBOM upload from the browser: the file itself as the body of POST /api/sboms/upload?releaseId=
 * (docs/api.md "Raw bodies"), gzip-compressed in the browser when large (Content-Encoding: gzip),
 * so an SBOM up to the 10 MB limit fits one API request. XMLHttpRequest, not fetch: only it
 * reports upload progress.
 */
import { csrfHeaders } from './api/client';
import { MAX_SBOM_BYTES } from '../../shared/service/sboms/sbom-limits';

/** API Gateway's Lambda request limit is 6 MB; leave room for headers. */
export const MAX_REQUEST_BYTES = 5_800_000;
const COMPRESS_ABOVE_BYTES = 256 * 1024;

export interface UploadResult {
  status: number;
  body: unknown;
}

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

async function gzip(file: Blob): Promise<Blob> {
  const stream = file.stream().pipeThrough(new CompressionStream('gzip'));
  return new Response(stream).blob();
}

export async function uploadSbom(
  releaseId: string,
  file: File,
  onProgress: (fraction: number, phase: 'compressing' | 'uploading') => void,
): Promise<UploadResult> {
  // The service refuses more (413) after the whole file has travelled: say so before sending it.
  if (file.size > MAX_SBOM_BYTES) {
    return {
      status: 413,
      body: {
        error: {
          code: 'payload_too_large',
          message: `The file is ${megabytes(file.size)} MB; the service accepts SBOMs up to ${megabytes(MAX_SBOM_BYTES)} MB (${MAX_SBOM_BYTES.toLocaleString('en')} bytes).`,
        },
      },
    };
  }
  let body: Blob = new Blob([file]); // no type: the server detects the format from the content
  const headers: Record<string, string> = { ...csrfHeaders() };
  if (file.size > COMPRESS_ABOVE_BYTES) {
    onProgress(0, 'compressing');
    body = await gzip(file);
    headers['Content-Encoding'] = 'gzip';
  }
  if (body.size > MAX_REQUEST_BYTES) {
    // Only a file that barely compresses gets here (the 10 MB limit compresses far below one request).
    return {
      status: 413,
      body: {
        error: {
          code: 'payload_too_large',
          message: `The file is ${megabytes(file.size)} MB and still ${megabytes(body.size)} MB compressed; one request carries up to ${megabytes(MAX_REQUEST_BYTES)} MB. Use the CLI's pre-signed upload (vexdesk upload --presigned).`,
        },
      },
    };
  }
  const url = `/api/sboms/upload?releaseId=${encodeURIComponent(releaseId)}&fileName=${encodeURIComponent(file.name.slice(0, 255))}`;
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total, 'uploading');
    };
    request.onload = () => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(request.responseText);
      } catch {
        parsed = { error: { message: `The server answered ${request.status}.` } };
      }
      resolve({ status: request.status, body: parsed });
    };
    request.onerror = () => reject(new Error('The upload was interrupted.'));
    request.send(body);
  });
}
