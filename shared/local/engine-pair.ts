/**
 * Starts the embedded DynamoDB and S3 engines together, on whichever thread calls it: the engine
 * worker (engine-worker.ts) and engines.ts for `thread: 'main'` both start them here. A start that
 * fails half way stops what had started.
 */
import { startEmbeddedDynamo, type EmbeddedDynamo } from './embedded-dynamo';
import { startEmbeddedS3, type EmbeddedS3 } from './embedded-s3';
import type { EngineWorkerData } from './engine-worker';

export interface EnginePair {
  dynamo: EmbeddedDynamo;
  s3: EmbeddedS3;
  /** Stops both (LevelDB closed, so every acknowledged write is on disk); the first failure is thrown after both tried. */
  stop(): Promise<void>;
}

async function stopAll(engines: readonly ({ stop(): Promise<void> } | undefined)[]): Promise<void> {
  const results = await Promise.allSettled(engines.map((engine) => engine?.stop() ?? Promise.resolve()));
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}

export async function startEnginePair(data: EngineWorkerData): Promise<EnginePair> {
  let dynamo: EmbeddedDynamo | undefined;
  let s3: EmbeddedS3 | undefined;
  try {
    dynamo = await startEmbeddedDynamo({
      credentials: data.credentials,
      ...(data.dynamoPath !== undefined ? { path: data.dynamoPath } : {}),
      ...(data.dynamoJournalDir !== undefined ? { journalDir: data.dynamoJournalDir } : {}),
      ...(data.dynamoSocketDir !== undefined ? { socketDir: data.dynamoSocketDir } : {}),
      ...(data.dynamoPort !== undefined ? { port: data.dynamoPort } : {}),
      ...(data.foreignWrites !== undefined ? { foreignWrites: new Int32Array(data.foreignWrites) } : {}),
    });
    s3 = await startEmbeddedS3({
      directory: data.s3Directory,
      credentials: data.credentials,
      ...(data.s3Port !== undefined ? { port: data.s3Port } : {}),
    });
  } catch (error) {
    await stopAll([dynamo, s3]).catch(() => undefined);
    throw error;
  }
  const started = { dynamo, s3 };
  return { ...started, stop: () => stopAll([started.dynamo, started.s3]) };
}
