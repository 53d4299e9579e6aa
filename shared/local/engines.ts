/**
 * Starts the embedded DynamoDB- and S3-compatible engines for local runs and tests,
 * and finds the ones a running server already holds (LevelDB admits one process per
 * directory, so an admin CLI must reuse them rather than open the data itself).
 *
 * Layout under the data directory: `dynamodb/` (LevelDB), `dynamodb-journal/` (the
 * write-ahead records of transactions in progress, embedded-journal.ts), `s3/` (buckets
 * as files), `engines.json` ({ pid, dynamoEndpoint, s3Endpoint }) while the engines run,
 * `credentials.json`: the key pair the engines require (engine-credentials.ts),
 * `dynalite.sock`: the DynamoDB front's private hop to dynalite. The directory is 0700,
 * its files 0600.
 *
 * Where they run (`thread`): by default on a worker thread of this process (engine-worker.ts),
 * so their request handling (dynalite, LevelDB calls, s3rver) does not queue behind the API's
 * handlers on one event loop: on a multi-core machine both run at once, and this process's own
 * DynamoDB calls cross to them as messages on the worker's port, unsigned. With `thread: 'main'`
 * they run on the caller's thread, and those calls reach them as function calls
 * (in-process-dynamo-handler.ts serves both): no message to wake another thread, but one core for
 * both. That suits several servers sharing a machine's cores (the test suites); one server alone
 * answers faster on its own thread (docs/architecture/local-runtime.md "Where the engines run").
 * Other processes, and every S3 call, use the signed loopback endpoints.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  ensureEngineCredentials,
  preparePrivateDataDir,
  readEngineCredentials,
  writePrivateFile,
  type EngineCredentials,
} from './engine-credentials';
import type {
  EngineWorkerData,
  EngineWorkerReply,
  EngineWorkerRequest,
  PortedRequest,
  SerializedError,
} from './engine-worker';
import type { EngineResponse } from './embedded-dynamo-wire';
import type { DynamoTransport } from '../service/aws-clients';
import { InProcessDynamoHandler, leaveUnsigned } from './in-process-dynamo-handler';

/** Where the engines listen and the only key pair they accept. */
export interface EngineAccess {
  dynamoEndpoint: string;
  s3Endpoint: string;
  credentials: EngineCredentials;
  /** Their data directory: local secrets (the publisher-key seal) live beside the engines' data. */
  dataDir?: string;
  /** The SDK's way to the DynamoDB engine when it runs on this thread: function calls, unsigned. */
  dynamoTransport?: DynamoTransport;
}

export interface EmbeddedEngines extends EngineAccess {
  /** How many writes other processes (the admin CLI, tests) have made through the DynamoDB engine's loopback front. */
  foreignWrites(): number;
  stop(): Promise<void>;
}

export interface StartEmbeddedEnginesOptions {
  dataDir: string;
  /** Loopback ports; 0 or omitted = random. */
  dynamoPort?: number;
  s3Port?: number;
  /** Keep DynamoDB data in memory (tests); S3 objects still go under dataDir/s3. */
  inMemory?: boolean;
  /** `worker` (default): a thread of their own; `main`: the caller's thread. */
  thread?: EngineThreadChoice;
}

export type EngineThreadChoice = 'worker' | 'main';

/** `VEXDESK_ENGINES_THREAD` of `npm start` and the admin CLI: `worker` (default) or `main`. */
export function engineThreadFromEnvironment(env: NodeJS.ProcessEnv): EngineThreadChoice {
  const value = env.VEXDESK_ENGINES_THREAD;
  if (value === undefined || value === '' || value === 'worker') return 'worker';
  if (value === 'main') return 'main';
  throw new Error(`VEXDESK_ENGINES_THREAD must be "worker" or "main", not "${value}"`);
}

interface EnginesFile {
  pid: number;
  dynamoEndpoint: string;
  s3Endpoint: string;
}

const ENGINES_FILE = 'engines.json';

function enginesFilePath(dataDir: string): string {
  return path.join(dataDir, ENGINES_FILE);
}

async function readEnginesFile(dataDir: string): Promise<EnginesFile | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(enginesFilePath(dataDir), 'utf8'));
  } catch {
    return undefined; // missing or half-written: nobody usable is running
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { pid, dynamoEndpoint, s3Endpoint } = parsed as Record<string, unknown>;
  if (typeof pid !== 'number' || typeof dynamoEndpoint !== 'string' || typeof s3Endpoint !== 'string') return undefined;
  return { pid, dynamoEndpoint, s3Endpoint };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function acceptsConnections(endpoint: string, timeoutMs = 1000): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The endpoints (and key pair) of engines another (or this) process runs on dataDir, if they are up. */
export async function findRunningEngines(dataDir: string): Promise<EngineAccess | undefined> {
  const file = await readEnginesFile(dataDir);
  if (!file || !processAlive(file.pid) || !(await acceptsConnections(file.dynamoEndpoint))) return undefined;
  const credentials = await readEngineCredentials(dataDir);
  if (!credentials) return undefined;
  return { dynamoEndpoint: file.dynamoEndpoint, s3Endpoint: file.s3Endpoint, credentials, dataDir };
}

/** Loaded by Node on the worker thread (see engine-worker.ts for how TypeScript is handled there). */
const WORKER_ENTRY = new URL('./engine-worker.ts', import.meta.url);

/**
 * The engine thread's young generation (two 16 MB semi-spaces plus V8's share for new large
 * objects). V8 sizes it from the heap limit, which on a machine with several GB gives 64 MB
 * semi-spaces: ~130 MB that one burst of requests (a corpus import) commits and the thread keeps
 * for good, while what dynalite holds between requests is ~25 MB. Same size as the API thread's
 * `--max-semi-space-size=16` (package.json `start`); docs/architecture/local-runtime.md "Local memory".
 */
export const ENGINE_YOUNG_GENERATION_MB = 48;

function reviveError(serialized: SerializedError): Error {
  const error: Error & { code?: string } = new Error(serialized.message);
  error.name = serialized.name;
  if (serialized.stack !== undefined) error.stack = serialized.stack;
  if (serialized.code !== undefined) error.code = serialized.code;
  return error;
}

interface EngineThread {
  dynamoEndpoint: string;
  s3Endpoint: string;
  dynamoTransport?: DynamoTransport;
  /** Stops both engines (LevelDB closed) and ends the thread; call once. */
  stop(): Promise<void>;
}

/**
 * Starts the engines on a worker thread; resolves once both listen. This thread's own DynamoDB calls cross to
 * the engine as messages (`dynamo` / `dynamo-answer`, engine-worker.ts), unsigned as on one thread.
 */
function startEngineThread(data: EngineWorkerData): Promise<EngineThread> {
  return new Promise((resolveStart, rejectStart) => {
    const worker = new Worker(WORKER_ENTRY, {
      workerData: data,
      name: 'vexdesk-engines',
      resourceLimits: { maxYoungGenerationSizeMb: ENGINE_YOUNG_GENERATION_MB },
    });
    let state: 'starting' | 'running' | 'stopping' | 'ended' = 'starting';
    let settleStop: ((error?: Error) => void) | undefined;
    /** Requests sent to the engine thread and not answered yet, by id. */
    const awaiting = new Map<number, (response: EngineResponse | undefined) => void>();
    let nextRequestId = 0;
    const dropAwaiting = () => {
      for (const settle of awaiting.values()) settle(undefined);
      awaiting.clear();
    };
    const requestHandler = new InProcessDynamoHandler(
      (request) =>
        new Promise((settle) => {
          if (state !== 'running') {
            settle(undefined);
            return;
          }
          const id = nextRequestId++;
          awaiting.set(id, settle);
          // Its own buffer, moved rather than copied (a small Buffer's view would take Node's 8 KB pool along).
          const body = new Uint8Array(request.body);
          const ported: PortedRequest = {
            method: request.method,
            url: request.url,
            headers: request.headers as Record<string, string>,
            body,
          };
          worker.postMessage({ type: 'dynamo', id, request: ported } satisfies EngineWorkerRequest, [body.buffer]);
        }),
    );

    /** The thread is gone: settle whatever waits on it. Unexpected once running: fail loudly, as an engine crash did in-thread. */
    const ended = (error: Error) => {
      const previous = state;
      state = 'ended';
      requestHandler.close();
      dropAwaiting();
      if (previous === 'starting') rejectStart(error);
      else if (previous === 'stopping') settleStop?.(error);
      else if (previous === 'running')
        process.nextTick(() => {
          throw new Error(`Embedded engines stopped unexpectedly: ${error.message}`, { cause: error });
        });
    };

    worker.on('message', (message: EngineWorkerReply) => {
      if (message.type === 'dynamo-answer') {
        const settle = awaiting.get(message.id);
        awaiting.delete(message.id);
        const { response } = message;
        settle?.(
          response && {
            status: response.status,
            headers: response.headers,
            body: Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength),
          },
        );
      } else if (message.type === 'started' && state === 'starting') {
        state = 'running';
        resolveStart({
          dynamoEndpoint: message.dynamoEndpoint,
          s3Endpoint: message.s3Endpoint,
          dynamoTransport: { requestHandler, signer: leaveUnsigned },
          stop: () =>
            new Promise<void>((resolveStop, rejectStop) => {
              if (state !== 'running') {
                resolveStop();
                return;
              }
              state = 'stopping';
              // Calls made from now on fail as a refused connection would; those under way are answered.
              requestHandler.close();
              settleStop = (error) => (error ? rejectStop(error) : resolveStop());
              worker.postMessage({ type: 'stop' } satisfies EngineWorkerRequest);
            }),
        });
      } else if (message.type === 'start-failed' && state === 'starting') {
        state = 'ended';
        rejectStart(reviveError(message.error));
        void worker.terminate();
      } else if (message.type === 'stopped' && state === 'stopping') {
        // LevelDB is closed and both servers are down: nothing is left to lose.
        state = 'ended';
        dropAwaiting();
        const settle = settleStop;
        void worker.terminate().then(() => settle?.(message.error ? reviveError(message.error) : undefined));
      }
    });
    worker.on('error', (error: Error) => ended(error));
    worker.on('exit', (code) => ended(new Error(`the engine thread exited with code ${code}`)));
  });
}

/** Starts the engines on this thread; this process's DynamoDB calls reach them without a socket. */
async function startEnginesOnThisThread(data: EngineWorkerData): Promise<EngineThread> {
  const { startEnginePair } = await import('./engine-pair');
  const pair = await startEnginePair(data);
  const { dynamo, s3 } = pair;
  const requestHandler = new InProcessDynamoHandler((request) => dynamo.serve(request));
  return {
    dynamoEndpoint: dynamo.endpoint,
    s3Endpoint: s3.endpoint,
    dynamoTransport: { requestHandler, signer: leaveUnsigned },
    stop() {
      requestHandler.close();
      return pair.stop();
    },
  };
}

export async function startEmbeddedEngines(options: StartEmbeddedEnginesOptions): Promise<EmbeddedEngines> {
  const { dataDir } = options;
  const running = await findRunningEngines(dataDir);
  if (running)
    throw new Error(
      `Embedded engines already run on ${dataDir} (DynamoDB ${running.dynamoEndpoint}); use findRunningEngines() instead`,
    );
  await preparePrivateDataDir(dataDir);
  const credentials = await ensureEngineCredentials(dataDir);
  const dynamoDir = path.join(dataDir, 'dynamodb');
  if (!options.inMemory) await mkdir(dynamoDir, { recursive: true, mode: 0o700 });

  const start = options.thread === 'main' ? startEnginesOnThisThread : startEngineThread;
  const foreignWrites = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const foreignWriteCount = new Int32Array(foreignWrites);
  const engines = await start({
    foreignWrites,
    credentials,
    dynamoSocketDir: dataDir,
    ...(options.inMemory ? {} : { dynamoPath: dynamoDir, dynamoJournalDir: path.join(dataDir, 'dynamodb-journal') }),
    ...(options.dynamoPort !== undefined ? { dynamoPort: options.dynamoPort } : {}),
    s3Directory: path.join(dataDir, 's3'),
    ...(options.s3Port !== undefined ? { s3Port: options.s3Port } : {}),
  });
  try {
    const file: EnginesFile = {
      pid: process.pid,
      dynamoEndpoint: engines.dynamoEndpoint,
      s3Endpoint: engines.s3Endpoint,
    };
    // Written aside and renamed, so a reader never sees half a file.
    await writePrivateFile(enginesFilePath(dataDir), `${JSON.stringify(file, null, 2)}\n`);
  } catch (error) {
    await engines.stop().catch(() => undefined);
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    dynamoEndpoint: engines.dynamoEndpoint,
    s3Endpoint: engines.s3Endpoint,
    credentials,
    dataDir,
    ...(engines.dynamoTransport ? { dynamoTransport: engines.dynamoTransport } : {}),
    foreignWrites: () => Atomics.load(foreignWriteCount, 0),
    stop() {
      stopping ??= (async () => {
        // Remove the pointer first so nobody picks up engines that are going away,
        // but only if it is still ours (another process may have taken over since).
        const file = await readEnginesFile(dataDir);
        if (file?.pid === process.pid && file.dynamoEndpoint === engines.dynamoEndpoint)
          await rm(enginesFilePath(dataDir), { force: true });
        await engines.stop();
      })();
      return stopping;
    },
  };
}
