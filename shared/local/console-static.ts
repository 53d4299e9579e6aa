/**
 * `npm start` serves the web console (web/dist, built by `npm run build:web`) beside the API, as
 * CloudFront does on AWS: `/api/*` (and the CSAF `/.well-known/` path) go to the API, every other GET
 * or HEAD to the console. A path with a file in web/dist gets it; a console route (`/`, `/releases/…`,
 * `/d/{slug}`, anything without a file extension) gets index.html, and the SPA routes it.
 *
 * Hashed assets (`/assets/…`) are cached for a year (their name changes with their content);
 * index.html is revalidated on every load so a new build is picked up. The same security headers as
 * the stack's response headers policy (CSP without inline script or style).
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { plainHttpConsoleHeaders } from '../service/http/console-headers';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** What the stack's CloudFront response headers policy sends (shared/service/http/console-headers.ts): the local console runs under the same rules. */
export const CONSOLE_SECURITY_HEADERS = plainHttpConsoleHeaders();

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/** Whether a request is the console's rather than the API's. */
export function isConsoleRequest(method: string | undefined, url: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const path = (url ?? '/').split('?')[0] ?? '/';
  return !(path === '/api' || path.startsWith('/api/') || path.startsWith('/.well-known/') || !path.startsWith('/'));
}

/**
 * The file a console path names inside `root`, or undefined for a path that cannot name one
 * (undecodable, a NUL, a `..` segment, a dot file): never a file outside the build directory.
 */
export function consoleFilePath(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/');
  if (segments.some((segment) => segment === '..' || segment.startsWith('.'))) return undefined;
  const base = resolve(root);
  const candidate = resolve(base, `.${normalize(`/${decoded}`)}`);
  return candidate === base || candidate.startsWith(base + sep) ? candidate : undefined;
}

async function fileAt(path: string | undefined): Promise<{ path: string; size: number } | undefined> {
  if (!path) return undefined;
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? { path, size: info.size } : undefined;
}

function sendText(response: ServerResponse, status: number, text: string, head: boolean): void {
  response.writeHead(status, {
    ...CONSOLE_SECURITY_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(head ? undefined : text);
}

export function createConsoleHandler(
  root: string,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const base = resolve(root);
  return async (request, response) => {
    const head = request.method === 'HEAD';
    const urlPath = (request.url ?? '/').split('?')[0] ?? '/';
    const index = await fileAt(join(base, 'index.html'));
    if (!index)
      return sendText(
        response,
        503,
        'The console is not built: run `npm run build:web` (npm start builds it when web/dist is missing).\n',
        head,
      );
    const named = urlPath === '/' ? undefined : consoleFilePath(base, urlPath);
    const file = named ? await fileAt(named) : undefined;
    // A path with an extension names a file: a missing one is 404, not the app (a stale asset must not come back as HTML).
    if (!file && extname(urlPath) !== '') return sendText(response, 404, 'Not found\n', head);
    const served = file ?? index;
    const isAsset = served !== index && urlPath.startsWith('/assets/');
    response.writeHead(200, {
      ...CONSOLE_SECURITY_HEADERS,
      'Content-Type': CONTENT_TYPES[extname(served.path)] ?? 'application/octet-stream',
      'Content-Length': served.size,
      'Cache-Control': isAsset ? IMMUTABLE : REVALIDATE,
    });
    if (head) {
      response.end();
      return;
    }
    createReadStream(served.path)
      .on('error', () => response.destroy())
      .pipe(response);
  };
}

/** Requests the local server answers outside the API, as CloudFront's other origins do on AWS. */
export interface LocalSite {
  matches(request: IncomingMessage): boolean;
  serve(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

/** The web console built in `root` (web/dist): every GET or HEAD outside `/api/*` and `/.well-known/`. */
export function consoleSite(root: string): LocalSite {
  return { matches: (request) => isConsoleRequest(request.method, request.url), serve: createConsoleHandler(root) };
}

/** A request listener that gives `site` its requests and `otherwise` the rest (the server while it starts). */
export function siteFirst(
  site: LocalSite,
  otherwise: (request: IncomingMessage, response: ServerResponse) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (!site.matches(request)) return otherwise(request, response);
    site.serve(request, response).catch(() => {
      if (!response.headersSent) sendText(response, 500, 'Internal error\n', false);
      else response.destroy();
    });
  };
}
