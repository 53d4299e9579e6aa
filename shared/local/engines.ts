/**
 * Starts the embedded DynamoDB- and S3-compatible engines for local runs and tests,
 * and finds the ones a running server already holds (LevelDB admits one process per
 * directory, so an admin CLI must reuse them rather than open the data itself).
 *
 * Layout under the data directory: `dynamodb/` (LevelDB), `s3/` (buckets as files),
 * `engines.json` ({ pid, dynamoEndpoint, s3Endpoint }) while the engines run.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { startEmbeddedDynamo, type EmbeddedDynamo } from './embedded-dynamo';
import { startEmbeddedS3, type EmbeddedS3 } from './embedded-s3';

export interface EmbeddedEngines {
  dynamoEndpoint: string;
  s3Endpoint: string;
  stop(): Promise<void>;
}

export interface StartEmbeddedEnginesOptions {
  dataDir: string;
  /** Loopback ports; 0 or omitted = random. */
  dynamoPort?: number;
  s3Port?: number;
  /** Keep DynamoDB data in memory (tests); S3 objects still go under dataDir/s3. */
  inMemory?: boolean;
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

/** The endpoints of engines another (or this) process runs on dataDir, if they are up. */
export async function findRunningEngines(
  dataDir: string,
): Promise<{ dynamoEndpoint: string; s3Endpoint: string } | undefined> {
  const file = await readEnginesFile(dataDir);
  if (!file || !processAlive(file.pid) || !(await acceptsConnections(file.dynamoEndpoint))) return undefined;
  return { dynamoEndpoint: file.dynamoEndpoint, s3Endpoint: file.s3Endpoint };
}

export async function startEmbeddedEngines(options: StartEmbeddedEnginesOptions): Promise<EmbeddedEngines> {
  const { dataDir } = options;
  const running = await findRunningEngines(dataDir);
  if (running)
    throw new Error(
      `Embedded engines already run on ${dataDir} (DynamoDB ${running.dynamoEndpoint}); use findRunningEngines() instead`,
    );
  await mkdir(dataDir, { recursive: true });
  const dynamoDir = path.join(dataDir, 'dynamodb');
  if (!options.inMemory) await mkdir(dynamoDir, { recursive: true });

  let dynamo: EmbeddedDynamo | undefined;
  let s3: EmbeddedS3 | undefined;
  try {
    dynamo = await startEmbeddedDynamo({
      ...(options.inMemory ? {} : { path: dynamoDir }),
      ...(options.dynamoPort !== undefined ? { port: options.dynamoPort } : {}),
    });
    s3 = await startEmbeddedS3({
      directory: path.join(dataDir, 's3'),
      ...(options.s3Port !== undefined ? { port: options.s3Port } : {}),
    });
    const file: EnginesFile = { pid: process.pid, dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint };
    // Written aside and renamed, so a reader never sees half a file.
    const temporary = `${enginesFilePath(dataDir)}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`);
    await rename(temporary, enginesFilePath(dataDir));
  } catch (error) {
    await Promise.allSettled([dynamo?.stop(), s3?.stop()]);
    throw error;
  }

  const started = { dynamo, s3 };
  let stopping: Promise<void> | undefined;
  return {
    dynamoEndpoint: started.dynamo.endpoint,
    s3Endpoint: started.s3.endpoint,
    stop() {
      stopping ??= (async () => {
        // Remove the pointer first so nobody picks up engines that are going away,
        // but only if it is still ours (another process may have taken over since).
        const file = await readEnginesFile(dataDir);
        if (file?.pid === process.pid && file.dynamoEndpoint === started.dynamo.endpoint)
          await rm(enginesFilePath(dataDir), { force: true });
        const results = await Promise.allSettled([started.dynamo.stop(), started.s3.stop()]);
        const failure = results.find((result) => result.status === 'rejected');
        if (failure) throw failure.reason;
      })();
      return stopping;
    },
  };
}
