/**
 * The local data directory is private to its owner: the directory is 0700 and the files
 * at its top 0600, and the embedded engines accept only requests signed with a key pair
 * generated once per data directory (`credentials.json`, 0600). Another local user can
 * neither read the data nor use the loopback endpoints that engines.json names.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, readdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EngineCredentials } from './sigv4-verifier';

export type { EngineCredentials } from './sigv4-verifier';

const CREDENTIALS_FILE = 'credentials.json';

/** Creates the data directory owner-only, and takes group/other access away from an older one. */
export async function preparePrivateDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  for (const entry of await readdir(dataDir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(dataDir, entry.name);
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  }
}

/** Writes a file readable by its owner only, atomically (aside, then renamed). */
export async function writePrivateFile(file: string, content: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode: 0o600 });
  await rename(temporary, file);
}

function parseCredentials(text: string): EngineCredentials | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { accessKeyId, secretAccessKey } = parsed as Record<string, unknown>;
  if (typeof accessKeyId !== 'string' || typeof secretAccessKey !== 'string' || !accessKeyId || !secretAccessKey)
    return undefined;
  return { accessKeyId, secretAccessKey };
}

/** The data directory's engine key pair, if it has one. */
export async function readEngineCredentials(dataDir: string): Promise<EngineCredentials | undefined> {
  const text = await readFile(path.join(dataDir, CREDENTIALS_FILE), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseCredentials(text);
}

/** The data directory's engine key pair, generated on first use. */
export async function ensureEngineCredentials(dataDir: string): Promise<EngineCredentials> {
  const existing = await readEngineCredentials(dataDir);
  if (existing) return existing;
  const generated: EngineCredentials = {
    // The shape of an AWS key pair: 20 upper-case characters and 40 of secret.
    accessKeyId: `VXDL${randomBytes(10).toString('hex').toUpperCase().slice(0, 16)}`,
    secretAccessKey: randomBytes(30).toString('base64'),
  };
  // 'wx': when two processes start on a new directory at once, the first file wins.
  const handle = await open(path.join(dataDir, CREDENTIALS_FILE), 'wx', 0o600).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST') return undefined;
    throw error;
  });
  if (!handle) {
    const winner = await readEngineCredentials(dataDir);
    if (!winner)
      throw new Error(
        `${path.join(dataDir, CREDENTIALS_FILE)} is not a valid key pair; remove it to generate a new one`,
      );
    return winner;
  }
  try {
    await handle.writeFile(`${JSON.stringify(generated, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return generated;
}
