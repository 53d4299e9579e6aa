/** The local server's console hosting (shared/local/console-static.ts), on a real HTTP server over a temporary build. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleFilePath, consoleSite, isConsoleRequest, siteFirst } from '../../shared/local/console-static';

let root: string;
let server: Server;
let base: string;

beforeAll(async () => {
  const parent = mkdtempSync(join(tmpdir(), 'vexdesk-console-'));
  root = join(parent, 'dist');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Vexdesk</title>');
  writeFileSync(join(root, 'assets/index-abc123.js'), 'export {};');
  writeFileSync(join(root, 'assets/index-abc123.css'), 'body{}');
  writeFileSync(join(parent, 'secret.txt'), 'outside the build');
  // The API's listener answers whatever reaches it: the console's requests must not.
  server = createServer(
    siteFirst(consoleSite(root), (_request, response) => {
      response.writeHead(418, { 'Content-Type': 'text/plain' });
      response.end('api');
    }),
  );
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((closed) => server.close(closed));
  rmSync(join(root, '..'), { recursive: true, force: true });
});

describe('console hosting beside the API', () => {
  it('leaves /api/*, the CSAF well-known path and non-GET requests to the API', () => {
    expect(isConsoleRequest('GET', '/api/products')).toBe(false);
    expect(isConsoleRequest('GET', '/api')).toBe(false);
    expect(isConsoleRequest('GET', '/.well-known/csaf/provider-metadata.json')).toBe(false);
    expect(isConsoleRequest('POST', '/')).toBe(false);
    expect(isConsoleRequest('GET', '/')).toBe(true);
    expect(isConsoleRequest('HEAD', '/d/some-slug?x=1')).toBe(true);
    expect(isConsoleRequest('GET', '/apiary')).toBe(true);
  });

  it('serves index.html for console routes, revalidated, with the CSP', async () => {
    for (const path of ['/', '/releases/0b6f', '/d/acme-1-0-0-openvex-v1', '/settings?tab=keys']) {
      const response = await fetch(`${base}${path}`);
      expect({
        path,
        status: response.status,
        type: response.headers.get('content-type'),
        cache: response.headers.get('cache-control'),
      }).toEqual({ path, status: 200, type: 'text/html; charset=utf-8', cache: 'no-cache' });
      expect(await response.text()).toContain('<title>Vexdesk</title>');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves hashed assets with their type and a year of immutable caching; a missing one is 404, not the app', async () => {
    const script = await fetch(`${base}/assets/index-abc123.js`);
    expect([script.status, script.headers.get('content-type'), script.headers.get('cache-control')]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
    ]);
    const style = await fetch(`${base}/assets/index-abc123.css`, { method: 'HEAD' });
    expect([
      style.status,
      style.headers.get('content-type'),
      style.headers.get('content-length'),
      await style.text(),
    ]).toEqual([200, 'text/css; charset=utf-8', '6', '']);
    expect((await fetch(`${base}/assets/index-old999.js`)).status).toBe(404);
  });

  it('never serves a file outside the build directory', async () => {
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/%2e%2e%5csecret.txt',
      '/assets/%00.js',
      '/%E0%A4%A.txt',
    ]) {
      const response = await fetch(`${base}${path}`);
      expect({ path, status: response.status, body: (await response.text()).includes('outside the build') }).toEqual({
        path,
        status: 404,
        body: false,
      });
    }
    expect(consoleFilePath(root, '/../secret.txt')).toBeUndefined();
    expect(consoleFilePath(root, '/.env')).toBeUndefined();
    expect(consoleFilePath(root, '/assets/index-abc123.js')).toBe(join(root, 'assets/index-abc123.js'));
  });

  it('hands API paths to the API listener', async () => {
    const response = await fetch(`${base}/api/products`);
    expect([response.status, await response.text()]).toEqual([418, 'api']);
  });
});

describe('console hosting without a build', () => {
  it('answers 503 saying how to build', async () => {
    const empty = createServer(siteFirst(consoleSite(join(tmpdir(), 'vexdesk-no-such-build')), () => undefined));
    await new Promise<void>((listening) => empty.listen(0, '127.0.0.1', listening));
    try {
      const response = await fetch(`http://127.0.0.1:${(empty.address() as AddressInfo).port}/`);
      expect([response.status, await response.text()]).toEqual([503, expect.stringContaining('npm run build:web')]);
    } finally {
      await new Promise((closed) => empty.close(closed));
    }
  });
});
