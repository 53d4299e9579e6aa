/**
 * `npm run lock:repair`: the npm registry reachable from these machines lacks
 * some platform builds of optional native packages (e.g. @swc/core-darwin-*),
 * so `npm install` leaves them out of package-lock.json and `npm ci` then
 * refuses the lockfile as out of sync. This adds each missing optional
 * platform package with its os/cpu, which `npm ci` skips on other platforms.
 * Run it after any `npm install` that rewrites the lockfile.
 */
import { readFileSync, writeFileSync } from 'node:fs';

type LockPackage = {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
};

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'loong64', 'riscv64'];

export function platformOf(name: string): Pick<LockPackage, 'os' | 'cpu' | 'libc'> {
  const parts = name.split('/').pop()!.split('-'); // package names always have a last segment
  // Some Windows-only packages spell the platform out (vite's napi-windows-process-start-time).
  const os = OS.find((candidate) => parts.includes(candidate)) ?? (parts.includes('windows') ? 'win32' : undefined);
  const cpu = CPU.find((candidate) => parts.includes(candidate));
  const libc = parts.some((part) => part.startsWith('musl'))
    ? ['musl']
    : parts.some((part) => part === 'gnu' || part === 'gnueabihf')
      ? ['glibc']
      : undefined;
  return { ...(os ? { os: [os] } : {}), ...(cpu ? { cpu: [cpu] } : {}), ...(libc ? { libc } : {}) };
}

/** Optional dependencies named by some package that have no entry of their own. */
export function missingOptionalPackages(lock: {
  packages: Record<string, LockPackage>;
}): { name: string; version: string; dev: boolean }[] {
  const missing = new Map<string, { name: string; version: string; dev: boolean }>();
  for (const entry of Object.values(lock.packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      // Only platform builds: other optional packages (fsevents…) are left to npm.
      if (!lock.packages[`node_modules/${name}`] && !missing.has(name) && platformOf(name).os)
        missing.set(name, { name, version, dev: entry.dev === true });
    }
  }
  return [...missing.values()];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = new URL('../package-lock.json', import.meta.url);
  const lock = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, LockPackage> };
  const missing = missingOptionalPackages(lock);
  for (const { name, version, dev } of missing) {
    // A lock entry names one version; a caret or tilde range names the lowest it accepts.
    lock.packages[`node_modules/${name}`] = {
      version: version.replace(/^[\^~]/, ''),
      ...(dev ? { dev: true } : {}),
      optional: true,
      ...platformOf(name),
    };
  }
  lock.packages = Object.fromEntries(
    Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
  );
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(
    `added ${missing.length} optional platform packages: ${missing.map((entry) => entry.name).join(', ') || 'none'}`,
  );
}
