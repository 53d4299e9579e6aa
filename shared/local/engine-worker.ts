/**
 * Worker-thread entry of the embedded engines (started by engines.ts): the DynamoDB-
 * and S3-compatible engines run on their own event loop, in the same process, so
 * the API and the engines use two cores instead of taking turns on one.
 *
 * Node loads this file itself. Under tsx the worker inherits tsx's loader; under jest
 * or plain node, Node's own type stripping runs it. So it uses erasable TypeScript
 * only (type imports, no enums or parameter properties) and imports no project module
 * directly: the engines (extensionless imports, CommonJS dependencies) are loaded
 * through tsx's scoped loader, `tsImport`, which works whether or not tsx is active.
 * The test run's bundle (test/support/server-bundle.ts) makes this file an entry of its
 * own and imports the engine pair directly there.
 *
 * Protocol: workerData = EngineWorkerData; the worker answers `started` (or
 * `start-failed`), then on `stop` stops both engines (LevelDB closed, so every
 * acknowledged write is on disk) and answers `stopped`. Meanwhile each `dynamo` message is
 * one DynamoDB request of the parent thread's SDK, answered by `dynamo-answer` with the same
 * id: the parent's calls skip the loopback HTTP hop and its signature, as on one thread
 * (in-process-dynamo-handler.ts); other processes still use the signed endpoint.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';
import type { EnginePair, startEnginePair as StartEnginePair } from './engine-pair';
import type { EngineCredentials } from './sigv4-verifier';

export interface EngineWorkerData {
  /** The only key pair both engines accept. */
  credentials: EngineCredentials;
  /** LevelDB directory; omitted = in memory. */
  dynamoPath?: string;
  /** Transaction journal directory (with dynamoPath). */
  dynamoJournalDir?: string;
  /** Private directory for dynalite's internal socket. */
  dynamoSocketDir?: string;
  dynamoPort?: number;
  s3Directory: string;
  s3Port?: number;
  /** An Int32 the DynamoDB engine adds to for each write another process makes (shared with the starting thread). */
  foreignWrites?: SharedArrayBuffer;
}

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

/** A DynamoDB request or answer as it crosses threads: a Buffer arrives as a plain Uint8Array. */
export interface PortedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
}
export interface PortedResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export type EngineWorkerRequest = { type: 'stop' } | { type: 'dynamo'; id: number; request: PortedRequest };
export type EngineWorkerReply =
  | { type: 'started'; dynamoEndpoint: string; s3Endpoint: string }
  | { type: 'start-failed'; error: SerializedError }
  | { type: 'stopped'; error?: SerializedError }
  /** `response` undefined: the engine is stopping and dropped the request, as a closed connection would. */
  | { type: 'dynamo-answer'; id: number; response?: PortedResponse };

function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as NodeJS.ErrnoException).code;
  return {
    name: error.name,
    message: error.message,
    ...(error.stack !== undefined ? { stack: error.stack } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('engine-worker.ts runs as a worker thread (see shared/local/engines.ts)');
  const data = workerData as EngineWorkerData;
  const reply = (message: EngineWorkerReply) => port.postMessage(message);

  let engines: EnginePair;
  try {
    const { startEnginePair } = (await tsImport('./engine-pair.ts', import.meta.url)) as {
      startEnginePair: typeof StartEnginePair;
    };
    engines = await startEnginePair(data);
  } catch (error) {
    reply({ type: 'start-failed', error: serializeError(error) });
    port.close();
    return;
  }

  let stopping: Promise<void> | undefined;
  port.on('message', (message: EngineWorkerRequest) => {
    if (message.type === 'dynamo') {
      const { id, request } = message;
      const body = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
      engines.dynamo.serve({ ...request, body }).then(
        (response) => {
          if (!response) return reply({ type: 'dynamo-answer', id });
          // Its own buffer, moved rather than copied (a small Buffer's view would take Node's 8 KB pool along).
          const bytes = new Uint8Array(response.body);
          port.postMessage(
            { type: 'dynamo-answer', id, response: { ...response, body: bytes } } satisfies EngineWorkerReply,
            [bytes.buffer],
          );
        },
        () => reply({ type: 'dynamo-answer', id }),
      );
      return;
    }
    stopping ??= engines.stop().then(
      () => reply({ type: 'stopped' }),
      (error: unknown) => reply({ type: 'stopped', error: serializeError(error) }),
    );
  });
  reply({ type: 'started', dynamoEndpoint: engines.dynamo.endpoint, s3Endpoint: engines.s3.endpoint });
}

await main();
