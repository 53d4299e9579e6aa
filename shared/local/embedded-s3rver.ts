/**
 * Typed bridge to s3rver (CommonJS, untyped): its server, its filesystem store, its S3
 * error model and its account registry, and the part of a Koa context the embedded S3
 * engine's middleware reads. Pinned to s3rver 3's module layout.
 */
import { createRequire } from 'node:module';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';

const require = createRequire(import.meta.url);

/** The part of a Koa context the middleware uses. */
export interface KoaContext {
  method: string;
  path: string;
  url: string;
  query: Record<string, string | string[] | undefined>;
  headers: IncomingHttpHeaders;
  req: IncomingMessage | Readable;
  request: { req: IncomingMessage };
  res: ServerResponse;
}
export type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

interface StoredObject {
  bucket: string;
  key: string;
  content: Buffer | Readable;
  metadata: Record<string, unknown>;
}

export interface FilesystemStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag: string }>;
  putMetadata(bucket: string, key: string, metadata: Record<string, unknown>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
  putPart(
    bucket: string,
    uploadId: string,
    partNumber: string,
    content: Readable,
  ): Promise<{ size: number; md5: string }>;
}

interface S3rverInstance {
  middleware: Middleware[];
  store: FilesystemStore;
  httpServer?: Server;
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}

interface S3rverOptions {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  allowMismatchedSignatures: boolean;
  vhostBuckets: boolean;
}

export const S3rver = require('s3rver') as new (options: S3rverOptions) => S3rverInstance;
/** An error s3rver answers in S3's XML error shape. */
export const S3Error = require('s3rver/lib/models/error') as new (
  code: string,
  message: string,
  detail?: Record<string, string>,
) => Error;
export const accounts = require('s3rver/lib/models/account') as {
  registry: Map<string, unknown>;
  DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void };
};

/** A header's value (the first, when repeated). */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A query parameter's value (the first, when repeated). */
export function queryValue(query: KoaContext['query'], name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}
