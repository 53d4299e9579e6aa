/** Runs the embedded engines alone in a child process (engines-process.ts) and waits until they serve. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readEngineCredentials, type EngineCredentials } from '../../shared/local/engine-credentials';

export interface EngineChild {
  child: ChildProcess;
  dynamoEndpoint: string;
  s3Endpoint: string;
  /** The data directory's key pair, the only one the engines accept. */
  credentials: EngineCredentials;
  /** Resolves with the signal that ended the process (null after a normal exit). */
  exited: Promise<NodeJS.Signals | null>;
  stop(): Promise<void>;
}

export async function startEngineChild(dataDir: string, env: Record<string, string> = {}): Promise<EngineChild> {
  const root = resolve(import.meta.dirname, '../..');
  // `node --import tsx/esm` (not the tsx CLI): one process, so the pid in engines.json is the child's.
  const child = spawn(process.execPath, ['--import', 'tsx/esm', join(root, 'test/support/engines-process.ts')], {
    cwd: root,
    env: { ...process.env, ...env, DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((done) => child.once('exit', (_code, signal) => done(signal)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`engine process ended early (${child.exitCode ?? child.signalCode})`);
    if (Date.now() > deadline) throw new Error('engine process did not start within 60 s');
    const file = await readFile(join(dataDir, 'engines.json'), 'utf8').catch(() => undefined);
    const published =
      file === undefined
        ? undefined
        : (JSON.parse(file) as { pid: number; dynamoEndpoint: string; s3Endpoint: string });
    const credentials = await readEngineCredentials(dataDir);
    if (published && published.pid === child.pid && credentials) {
      return {
        credentials,
        child,
        dynamoEndpoint: published.dynamoEndpoint,
        s3Endpoint: published.s3Endpoint,
        exited,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    }
    await new Promise((done) => setTimeout(done, 50));
  }
}
