/**
 * A loopback stand-in for the corpus feeds' servers (osv-vulnerabilities.storage.googleapis.com,
 * CISA, FIRST): serves files as GCS does (Content-Length, `x-goog-hash` md5, an ETag answered with
 * 304 on `If-None-Match`), or broken in the ways a real download breaks, and logs every request.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strToU8, zipSync } from 'fflate';

export type Behaviour = 'ok' | 'http-500' | 'truncated' | 'reset' | 'bad-md5' | 'redirect';

export interface ServedFile {
  body: Buffer;
  type: string;
  behaviour?: Behaviour;
  /** With behaviour `redirect`: the Location answered (302). */
  location?: string;
}

export interface FeedServer {
  base: string;
  files: Map<string, ServedFile>;
  /** Paths requested (GET), in order, with the status answered. */
  requests: { path: string; status: number }[];
  close(): Promise<void>;
}

function md5(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('base64');
}

function serve(response: ServerResponse, file: ServedFile, ifNoneMatch: string | undefined): number {
  const etag = `"${createHash('md5').update(file.body).digest('hex')}"`;
  switch (file.behaviour ?? 'ok') {
    case 'ok':
    case 'bad-md5': {
      if (ifNoneMatch === etag && file.behaviour !== 'bad-md5') {
        response.writeHead(304, { ETag: etag });
        response.end();
        return 304;
      }
      // As GCS sends it for OSV: crc32c and md5 of the object.
      const hash = file.behaviour === 'bad-md5' ? md5(Buffer.from('something else')) : md5(file.body);
      response.writeHead(200, {
        'Content-Type': file.type,
        'Content-Length': file.body.length,
        'x-goog-hash': `crc32c=AAAAAA==,md5=${hash}`,
        ETag: etag,
      });
      response.end(file.body);
      return 200;
    }
    case 'redirect':
      response.writeHead(302, { Location: file.location ?? '/' });
      response.end();
      return 302;
    case 'http-500':
      response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end('backend error');
      return 500;
    case 'truncated': {
      // The file itself is cut short (an interrupted mirror): a consistent response of fewer bytes.
      const part = file.body.subarray(0, Math.floor(file.body.length * 0.6));
      response.writeHead(200, { 'Content-Type': file.type, 'Content-Length': part.length });
      response.end(part);
      return 200;
    }
    case 'reset':
      // Announces the whole body, sends part of it, then resets the connection.
      response.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length });
      response.write(file.body.subarray(0, Math.floor(file.body.length / 2)), () => response.socket?.resetAndDestroy());
      return 200;
  }
}

export async function startFeedServer(): Promise<FeedServer> {
  const files = new Map<string, ServedFile>();
  const requests: FeedServer['requests'] = [];
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const file = files.get(path);
    if (!file) {
      requests.push({ path, status: 404 });
      response.writeHead(404);
      response.end();
      return;
    }
    const ifNoneMatch = request.headers['if-none-match'];
    requests.push({ path, status: serve(response, file, typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined) });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    files,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    },
  };
}

/** An OSV record as OSV exports it. */
export function osvRecord(
  id: string,
  modified: string,
  affected: { ecosystem: string; name: string; fixed: string },
  extra: Record<string, unknown> = {},
) {
  return {
    schema_version: '1.6.0',
    id,
    modified,
    published: '2026-10-30T00:00:00Z',
    summary: `Fixture advisory ${id}`,
    details: 'Served by the loopback feed server.',
    affected: [
      {
        package: { ecosystem: affected.ecosystem, name: affected.name },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: affected.fixed }] }],
      },
    ],
    ...extra,
  };
}

type Record_ = ReturnType<typeof osvRecord>;

/**
 * Serves one ecosystem's directory of OSV's bucket: `<ID>.json` per record, `all.zip` holding them all,
 * and `modified_id.csv` (`<modified>,<ID>`, newest first, as OSV's exporter writes it).
 */
export function publishEcosystem(server: FeedServer, ecosystem: string, records: readonly Record_[]): void {
  const directory = `/${ecosystem}`;
  for (const path of [...server.files.keys()]) if (path.startsWith(`${directory}/`)) server.files.delete(path);
  for (const record of records)
    server.files.set(`${directory}/${record.id}.json`, {
      body: Buffer.from(JSON.stringify(record)),
      type: 'application/json',
    });
  server.files.set(`${directory}/all.zip`, {
    body: Buffer.from(
      zipSync(Object.fromEntries(records.map((record) => [`${record.id}.json`, strToU8(JSON.stringify(record))]))),
    ),
    type: 'application/zip',
  });
  const listing = [...records]
    .sort((a, b) => (a.modified === b.modified ? a.id.localeCompare(b.id) : a.modified < b.modified ? 1 : -1))
    .map((record) => `${record.modified},${record.id}\n`)
    .join('');
  server.files.set(`${directory}/modified_id.csv`, { body: Buffer.from(listing), type: 'text/csv' });
}
