/**
 * SBOM upload from the browser: the file itself as the body of POST /api/sboms/upload?releaseId=
 * (docs/api.md "Raw bodies"), gzip-compressed in the browser when large (Content-Encoding: gzip),
 * so an SBOM of tens of megabytes still fits one API request. XMLHttpRequest, not fetch: only it
 * reports upload progress.
 */
import { csrfHeaders } from './api/client';

/** API Gateway's Lambda request limit is 6 MB; leave room for headers. */
export const MAX_REQUEST_BYTES = 5_800_000;
const COMPRESS_ABOVE_BYTES = 256 * 1024;

export interface UploadResult {
  status: number;
  body: unknown;
}

async function gzip(file: Blob): Promise<Blob> {
  const stream = file.stream().pipeThrough(new CompressionStream('gzip'));
  return new Response(stream).blob();
}

export async function uploadSbom(releaseId: string, file: File, onProgress: (fraction: number, phase: 'compressing' | 'uploading') => void): Promise<UploadResult> {
  let body: Blob = new Blob([file]); // no type: the server detects the format from the content
  const headers: Record<string, string> = { ...csrfHeaders() };
  if (file.size > COMPRESS_ABOVE_BYTES) {
    onProgress(0, 'compressing');
    body = await gzip(file);
    headers['Content-Encoding'] = 'gzip';
  }
  if (body.size > MAX_REQUEST_BYTES) {
    return { status: 413, body: { error: { message: `The file is ${(file.size / 1e6).toFixed(1)} MB (${(body.size / 1e6).toFixed(1)} MB compressed); the console uploads up to ${(MAX_REQUEST_BYTES / 1e6).toFixed(1)} MB compressed. Use the CLI's pre-signed upload for larger files.` } } };
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
