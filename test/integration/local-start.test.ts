/**
 * `npm start` as the README gives it, on a data directory of its own: the demo key
 * is printed once (issue 9 item 12), generated documents name the listening address
 * (item 10), and SIGTERM to the npm process or Ctrl-C stops the whole process tree
 * and leaves the data directory consistent (item 14).
 */
import { afterAll, afterEach, describe, expect, test } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { awsCallLog } from '../support/server-process';

const root = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'vexdesk-start-'));
/** Generous: a clean stop takes about a second; the machine is shared. */
const STOP_BOUND_MS = 30_000;

interface Started {
  npm: ChildProcess;
  baseUrl: string;
  output: () => string;
}

const groups = new Set<number>();

/** `npm start` in a process group of its own, so a failed test can still remove everything it started. */
async function npmStart(env: Record<string, string> = {}): Promise<Started> {
  const serverFile = join(dataDir, 'server.json');
  // Not this worker's PUBLIC_BASE_URL (the shared test server's): npm start must choose its own.
  const { PUBLIC_BASE_URL: _inherited, ...inherited } = process.env;
  const npm = spawn('npm', ['start'], {
    cwd: root,
    env: { ...inherited, ...awsCallLog(), ...env, DATA_DIR: dataDir, PORT: '0', VEXDESK_QUIET: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (npm.pid === undefined) throw new Error('npm did not start');
  groups.add(npm.pid);
  let output = '';
  npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not serve within 90 s:\n${output}`);
    await new Promise((done) => setTimeout(done, 100));
    if (!existsSync(serverFile)) continue;
    try {
      const { baseUrl } = JSON.parse(readFileSync(serverFile, 'utf8')) as { baseUrl: string };
      // The banner follows server.json; wait for it too.
      if (output.includes('Vexdesk API listening')) return { npm, baseUrl, output: () => output };
    } catch {
      // half-written: read again
    }
  }
}

/** Live (not zombie) descendants of pid, from ps. */
function descendantsOf(pid: number): number[] {
  const rows = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,stat='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length === 3)
    .map(([child, parent, stat]) => ({ pid: Number(child), ppid: Number(parent), zombie: stat!.startsWith('Z') }));
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const row of rows) {
      if (row.ppid === parent && !row.zombie) {
        found.push(row.pid);
        walk(row.pid);
      }
    }
  };
  walk(pid);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An exited child nobody reaped yet still answers signal 0; ps fails once the pid is gone.
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return stat !== '' && !stat.startsWith('Z');
  } catch {
    return false;
  }
}

async function expectAllGone(pids: number[], npm: ChildProcess): Promise<void> {
  const deadline = Date.now() + STOP_BOUND_MS;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 100));
    left = pids.filter(alive);
  }
  expect(left).toEqual([]);
  if (npm.exitCode === null && npm.signalCode === null) await new Promise((done) => npm.once('exit', done));
}

/** What a stopped server must leave: no pointer to a server or engines that are gone. */
function expectCleanDataDir(): void {
  expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
  expect(existsSync(join(dataDir, 'engines.json'))).toBe(false);
  expect(existsSync(join(dataDir, 'bootstrap.json'))).toBe(true);
  // No transaction left half-done: the journal is empty at rest.
  expect(readdirSync(join(dataDir, 'dynamodb-journal'))).toEqual([]);
}

/** Whatever a failed test left running, so the next test starts on a free data directory. */
async function killLeftovers(): Promise<void> {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
      await new Promise((done) => setTimeout(done, 500));
    } catch {
      // already gone
    }
  }
  groups.clear();
}

afterEach(killLeftovers);

afterAll(async () => {
  await killLeftovers();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start', () => {
  let demoKey = '';
  let demoPassword = '';

  test('the first start prints the demo key; SIGTERM to npm stops every process it started', async () => {
    const started = await npmStart();
    const tree = descendantsOf(started.npm.pid!);
    expect(tree.length).toBeGreaterThan(0);
    ({
      apiKey: demoKey,
      login: { password: demoPassword },
    } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as {
      apiKey: string;
      login: { password: string };
    });
    expect(started.output()).toContain(demoKey);
    // The embedded OpenID provider's demo account (docs/sign-in.md): printed once, like the key.
    expect(started.output()).toContain(demoPassword);
    const products = await fetch(`${started.baseUrl}/api/products`, {
      headers: { Authorization: `Bearer ${demoKey}` },
    });
    expect(products.status).toBe(200);

    process.kill(started.npm.pid!, 'SIGTERM');
    await expectAllGone([started.npm.pid!, ...tree], started.npm);
    expectCleanDataDir();
  });

  test('a later start prints no key, serves the same data and names its own address in documents; Ctrl-C stops it', async () => {
    const started = await npmStart();
    const tree = descendantsOf(started.npm.pid!);
    expect(started.output()).not.toContain(demoKey);
    expect(started.output()).not.toContain(demoPassword);
    expect(started.output()).toContain('bootstrap.json');

    const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${started.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${demoKey}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return (JSON.parse(text) as { data: T }).data;
    };
    // lodash 4.17.20 is affected by GHSA-35jh-r3h4-6jhm of the bundled sample corpus.
    const product = await api<{ id: string }>('POST', '/api/products', { name: 'Start check', slug: 'start-check' });
    const release = await api<{ id: string }>('POST', `/api/products/${product.id}/releases`, { version: '1.0.0' });
    const content = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      components: [{ type: 'library', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' }],
    });
    const sbom = await api<{ id: string }>('POST', '/api/sboms/upload', {
      releaseId: release.id,
      content,
      fileName: 'bom.json',
    });
    await api('POST', '/api/cve-scan', { sbomId: sbom.id });
    const openvex = await api<{ content: { '@id': string } }>('POST', `/api/releases/${release.id}/vex`, {
      format: 'openvex',
    });
    expect(openvex.content['@id'].startsWith(`${started.baseUrl}/`)).toBe(true);
    const csaf = await api<{ content: { document: { publisher: { namespace: string } } } }>(
      'POST',
      `/api/releases/${release.id}/vex`,
      { format: 'csaf' },
    );
    expect(csaf.content.document.publisher.namespace.startsWith(`${started.baseUrl}/`)).toBe(true);

    // Ctrl-C: the terminal signals the whole foreground process group.
    process.kill(-started.npm.pid!, 'SIGINT');
    await expectAllGone([started.npm.pid!, ...tree], started.npm);
    expectCleanDataDir();
  });

  test('an explicit PUBLIC_BASE_URL wins over the listening address', async () => {
    const started = await npmStart({ PUBLIC_BASE_URL: 'https://vex.acme.test/' });
    const tree = descendantsOf(started.npm.pid!);
    expect(started.output()).toContain('Public base URL of generated documents: https://vex.acme.test');
    process.kill(started.npm.pid!, 'SIGTERM');
    await expectAllGone([started.npm.pid!, ...tree], started.npm);
    expectCleanDataDir();
  });
});
