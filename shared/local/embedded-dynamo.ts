/**
 * Embedded DynamoDB-compatible engine: dynalite (LevelDB) behind a front (loopback HTTP, and
 * function calls from the SDK of the engine's own process) that adds what dynalite lacks, TransactWriteItems and TransactGetItems, with DynamoDB's
 * semantics (all or nothing, CancellationReasons, isolation). This file is the front; the
 * transactions are planned in embedded-transaction-plan.ts and run by
 * embedded-transaction-engine.ts.
 *
 * Isolation: every request passes one readers-writer lock (embedded-dynamo-gate.ts). Writes
 * (PutItem, UpdateItem, DeleteItem, BatchWriteItem, table changes, TransactWriteItems) hold
 * it exclusively until dynalite has answered (the write is in LevelDB); reads (GetItem, Query, Scan,
 * BatchGetItem, TransactGetItems...) hold it shared. So no read ever sees a half-applied
 * transaction and no write interleaves with one.
 *
 * Across a crash: a transaction's writes go to LevelDB in one batch, which LevelDB applies
 * whole or not at all (embedded-transaction-engine.ts). Earlier versions journalled
 * transactions instead: with a journal directory, start-up undoes any transaction such a
 * journal left over before the engine listens (embedded-journal.ts,
 * embedded-transaction-recovery.ts).
 *
 * Authentication: every request over HTTP must carry a SigV4 signature made with the data
 * directory's key pair (sigv4-verifier.ts), else DynamoDB's own 400 answers
 * (UnrecognizedClientException, InvalidSignatureException...); calls from the engine's own
 * process cannot come from anyone else and are not checked. dynalite itself listens only on
 * a Unix socket in a private (0700) directory and is never connected to.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { createDynalite, type Dynalite } from './embedded-dynalite';
import type { TableCache } from './embedded-dynalite-store';
import { EngineBroken, EngineGate, EngineStopped } from './embedded-dynamo-gate';
import {
  API_PREFIX,
  ERROR_TYPE,
  JSON_TYPE,
  dynaliteAnswer,
  inProcessCalls,
  isRecord,
  type EngineRequest,
  type EngineResponse,
  type Reply,
} from './embedded-dynamo-wire';
import { TransactionJournal } from './embedded-journal';
import { TransactionEngine, crashPointFromEnvironment } from './embedded-transaction-engine';
import { restoreTransaction } from './embedded-transaction-recovery';
import { verifySigV4, type EngineCredentials, type Verdict } from './sigv4-verifier';
import { keepIdleSocketsOpen } from './idle-sockets';

export interface EmbeddedDynamo {
  endpoint: string;
  /**
   * Answers a call of this process's own SDK handed over in-process (in-process-dynamo-handler.ts):
   * no signature check, dynalite's validations and actions as over HTTP; undefined when the
   * engine is stopping.
   */
  serve(request: EngineRequest): Promise<EngineResponse | undefined>;
  stop(): Promise<void>;
}

export interface EmbeddedDynamoOptions {
  /** The only key pair requests may be signed with. */
  credentials: EngineCredentials;
  /** LevelDB directory; omitted = in memory. */
  path?: string;
  /** Loopback port of the front; 0 or omitted = random. */
  port?: number;
  /** Directory of the transaction journal earlier versions wrote (undone at start); omitted = none. */
  journalDir?: string;
  /** Private (0700) directory for dynalite's socket; omitted = a new temporary one. */
  socketDir?: string;
  /** Counts, at index 0, the writes that came through the loopback front (other processes'), as they succeed. */
  foreignWrites?: Int32Array;
}

const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
const SHARED_OPERATIONS = new Set([
  'GetItem',
  'BatchGetItem',
  'Query',
  'Scan',
  'DescribeTable',
  'ListTables',
  'DescribeTimeToLive',
  'ListTagsOfResource',
]);

/** Calls that change a table's definition or existence (they invalidate the key-schema cache). */
const TABLE_OPERATIONS = new Set(['CreateTable', 'UpdateTable', 'DeleteTable']);
/** Calls that write items: counted when another process makes them (`foreignWrites`). */
const ITEM_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** DynamoDB answers authentication failures with 400 (not 403) and these types. */
function signatureRejection(verdict: Exclude<Verdict, { ok: true }>): Reply {
  const type =
    verdict.problem === 'missing'
      ? ERROR_TYPE.missingToken
      : verdict.problem === 'malformed'
        ? ERROR_TYPE.incompleteSignature
        : verdict.problem === 'unknown-key'
          ? ERROR_TYPE.unrecognizedClient
          : ERROR_TYPE.invalidSignature;
  const message =
    verdict.problem === 'unknown-key' ? 'The security token included in the request is invalid.' : verdict.message;
  return { status: 400, body: { __type: type, message } };
}

/** Unix socket paths are limited to about 100 bytes (sun_path). */
const MAX_SOCKET_PATH = 100;

/**
 * Where dynalite listens: in the given private directory (a socket left by a killed
 * process is replaced; engines.ts admits one engine per data directory), or in a new
 * temporary 0700 directory when none is given or its path is too long for a socket.
 */
async function privateSocketPath(directory: string | undefined): Promise<string> {
  const inDirectory = directory === undefined ? undefined : path.join(directory, 'dynalite.sock');
  if (inDirectory !== undefined && Buffer.byteLength(inDirectory) <= MAX_SOCKET_PATH) {
    await rm(inDirectory, { force: true });
    return inDirectory;
  }
  return path.join(await mkdtemp(path.join(tmpdir(), 'vexdesk-dynalite-')), 'dynalite.sock');
}

/** Listens on a loopback port, or on a Unix socket path. */
function listen(server: http.Server, port: number | string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    };
    if (typeof port === 'string') server.listen(port, listening);
    else server.listen(port, '127.0.0.1', listening);
  });
}

function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** DynamoDB's request ids are 52 characters: a random prefix per engine and a counter (no random bytes per call). */
const REQUEST_ID_PREFIX = randomBytes(15).toString('hex').toUpperCase();
let requestCount = 0;
const nextRequestId = () => `${REQUEST_ID_PREFIX}${(++requestCount).toString(36).toUpperCase().padStart(22, '0')}`;

/** A reply in DynamoDB's wire form. */
function answer(reply: Reply): EngineResponse {
  const body = Buffer.from(JSON.stringify(reply.body));
  return {
    status: reply.status,
    headers: {
      'Content-Type': JSON_TYPE,
      'Content-Length': String(body.length),
      'x-amzn-RequestId': nextRequestId(),
      // The SDK may check DynamoDB's CRC32 of the body.
      'x-amz-crc32': String(crc32(body)),
    },
    body,
  };
}

/** What the front hands requests to. */
interface FrontTargets {
  /** The only key pair requests may be signed with. */
  credentials: EngineCredentials;
  gate: EngineGate;
  transactions: TransactionEngine;
  /** dynalite's server: its request handler answers every call but the transactions that came over HTTP. */
  dynalite: http.Server;
  /** dynalite's validations and actions, for calls whose envelope needs no check (this process's own). */
  run: Dynalite['run'];
  tables: TableCache;
  foreignWrites?: Int32Array;
}

/**
 * How a request reached the engine. Over loopback HTTP any local user could have sent it: its
 * signature must be the data directory's key pair's. In-process it is a call of this process's
 * own SDK (in-process-dynamo-handler.ts), which no one else can make: it is answered without
 * the signature check and without dynalite's HTTP envelope (URL, headers, request-id bytes).
 */
type Origin = 'http' | 'in-process';

function parseRequestBody(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

async function transaction(operation: string, raw: Buffer, transactions: TransactionEngine): Promise<EngineResponse> {
  const parsed = parseRequestBody(raw);
  if (parsed === undefined) return answer({ status: 400, body: { __type: ERROR_TYPE.serialization } });
  return answer(
    operation === 'TransactWriteItems'
      ? await transactions.transactWrite(parsed)
      : await transactions.transactGet(parsed),
  );
}

/**
 * Whether a signed HTTP request is one whose envelope dynalite's handler would pass as it is: a POST
 * to `/` in DynamoDB's JSON content type, no CORS origin, a DynamoDB target (its signature was checked,
 * so its Authorization header is complete). Such a request gets the same answer from `run` (dynalite's
 * validations and action) and `answer` (the same headers) without the handler's request replay, URL
 * parsing and random request id: per BatchWriteItem of an import, a few percent of the engine's time.
 * Anything else (and a body that is not a JSON object) goes through dynalite's handler.
 */
function plainEnvelope(request: EngineRequest): boolean {
  const target = request.headers['x-amz-target'];
  const contentType = request.headers['content-type'];
  return (
    request.method === 'POST' &&
    request.url === '/' &&
    request.headers.origin === undefined &&
    typeof contentType === 'string' &&
    contentType.split(';')[0]?.trim() === JSON_TYPE &&
    typeof target === 'string' &&
    target.startsWith(API_PREFIX) &&
    !target.slice(API_PREFIX.length).includes('.')
  );
}

/** The DynamoDB operation an `X-Amz-Target` header names; '' for none. */
function operationOf(target: unknown): string {
  return typeof target === 'string' && target.startsWith(API_PREFIX) ? target.slice(API_PREFIX.length) : '';
}

/**
 * Answers one request, however it arrived (loopback HTTP or the in-process port); undefined
 * when the engine is stopping and the request is dropped, as a closed connection would be.
 */
async function serve(
  request: EngineRequest,
  targets: FrontTargets,
  origin: Origin,
): Promise<EngineResponse | undefined> {
  const { credentials, gate, transactions, dynalite, run, tables } = targets;
  const operation = operationOf(request.headers['x-amz-target']);
  try {
    // Real DynamoDB answers a CORS preflight and the GET health check unsigned.
    if (origin === 'http' && request.method !== 'OPTIONS' && request.method !== 'GET') {
      const verdict = await verifySigV4(request, credentials);
      if (!verdict.ok) return answer(signatureRejection(verdict));
    }
    if (operation === 'TransactWriteItems' || operation === 'TransactGetItems')
      return await transaction(operation, request.body, transactions);
    // Everything else is dynalite's own handler, run while holding the lock until its answer is
    // complete (dynalite answers a write only after LevelDB took it).
    const release = await gate.enter(
      SHARED_OPERATIONS.has(operation) || request.method === 'GET' ? 'shared' : 'exclusive',
    );
    const tableOperation = TABLE_OPERATIONS.has(operation);
    try {
      if (tableOperation) {
        transactions.forgetTables();
        tables.begin();
      }
      const parsed = origin === 'http' && !plainEnvelope(request) ? undefined : parseRequestBody(request.body);
      if (origin === 'http' && parsed === undefined) return await dynaliteAnswer(dynalite, request);
      if (parsed === undefined) return answer({ status: 400, body: { __type: ERROR_TYPE.serialization } });
      return answer(await run(operation, parsed));
    } finally {
      if (tableOperation) tables.end();
      release();
    }
  } catch (error) {
    if (error instanceof EngineStopped) return undefined;
    if (!(error instanceof EngineBroken)) console.error('[embedded-dynamo] request failed', error);
    return answer({
      status: 500,
      body: { __type: ERROR_TYPE.internal, message: error instanceof Error ? error.message : String(error) },
    });
  }
}

/** The loopback HTTP front: other processes (the admin CLI, tests) reach the engine here. */
async function handleHttp(req: http.IncomingMessage, res: http.ServerResponse, targets: FrontTargets): Promise<void> {
  try {
    const body = await readBody(req);
    if (body === undefined) {
      res.writeHead(413).end();
      return;
    }
    const response = await serve(
      { method: req.method ?? 'POST', url: req.url ?? '/', headers: req.headers, body },
      targets,
      'http',
    );
    // Another process wrote: the local notification dispatcher's poll has something to look for (background.ts).
    // Counted before the answer leaves, so the writer never sees its write acknowledged and not yet counted.
    if (targets.foreignWrites && response?.status === 200 && ITEM_WRITES.has(operationOf(req.headers['x-amz-target'])))
      Atomics.add(targets.foreignWrites, 0, 1);
    if (response === undefined || res.destroyed) res.destroy();
    else res.writeHead(response.status, response.headers).end(response.body);
  } catch (error) {
    console.error('[embedded-dynamo] request failed', error);
    res.destroy();
  }
}

export async function startEmbeddedDynamo(options: EmbeddedDynamoOptions): Promise<EmbeddedDynamo> {
  // Tables become ACTIVE at once: real DynamoDB takes seconds, nothing local should wait.
  const {
    server: dynalite,
    run,
    tables,
    readItems,
    writeItems,
    updatedItem,
  } = createDynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  // Not a loopback port: any local user could reach dynalite there, around the front's checks.
  const socketPath = await privateSocketPath(options.socketDir);
  // Nothing connects to it (the front hands requests to dynalite's handler in-process); it is
  // dynalite's own listener, which its close() expects.
  await listen(dynalite, socketPath);
  const removeSocket = () =>
    rm(options.socketDir === undefined ? path.dirname(socketPath) : socketPath, { recursive: true, force: true });
  const call = inProcessCalls(run);
  const gate = new EngineGate();
  const crashAfterItems = crashPointFromEnvironment();

  let front: http.Server;
  let port: number;
  let serveRequest: EmbeddedDynamo['serve'];
  try {
    // Recovery completes before the front listens: no request sees a torn transaction.
    const journal = options.journalDir === undefined ? undefined : await TransactionJournal.open(options.journalDir);
    const undone = await journal?.recover((images) => restoreTransaction(call, images));
    if (undone) console.error(`[embedded-dynamo] undid ${undone} transaction(s) interrupted by a crash`);
    const transactions = new TransactionEngine({
      call,
      readItems,
      writeItems,
      updatedItem,
      gate,
      crashAfterItems,
    });
    const targets: FrontTargets = {
      credentials: options.credentials,
      gate,
      transactions,
      dynalite,
      run,
      tables,
      ...(options.foreignWrites ? { foreignWrites: options.foreignWrites } : {}),
    };
    front = http.createServer((req, res) => void handleHttp(req, res, targets));
    keepIdleSocketsOpen(front);
    serveRequest = (request) =>
      request.body.length > MAX_REQUEST_BYTES
        ? Promise.resolve(answer({ status: 413, body: { __type: ERROR_TYPE.serialization } }))
        : serve(request, targets, 'in-process');
    port = await listen(front, options.port ?? 0);
  } catch (error) {
    await new Promise<void>((resolve) => dynalite.close(() => resolve()));
    await removeSocket();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    serve: serveRequest,
    stop() {
      stopping ??= (async () => {
        const frontClosed = new Promise<void>((resolve) => front.close(() => resolve()));
        await gate.close();
        front.closeAllConnections();
        await frontClosed;
        // dynalite's close() also closes LevelDB, flushing every acknowledged write.
        await new Promise<void>((resolve, reject) => dynalite.close((error) => (error ? reject(error) : resolve())));
        await removeSocket();
      })();
      return stopping;
    },
  };
}
