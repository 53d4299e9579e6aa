import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { missingOptionalPackages, platformOf } from '../../bin/repair-lockfile';

describe('package-lock.json', () => {
  it('lists every optional platform package, so `npm ci` accepts it (run `npm run lock:repair` after npm install)', () => {
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as Parameters<
      typeof missingOptionalPackages
    >[0];
    expect(missingOptionalPackages(lock).map((entry) => entry.name)).toEqual([]);
  });

  it('derives os, cpu and libc from a platform package name', () => {
    expect(platformOf('@swc/core-linux-arm-gnueabihf')).toEqual({ os: ['linux'], cpu: ['arm'], libc: ['glibc'] });
    expect(platformOf('@unrs/resolver-binding-linux-loong64-musl')).toEqual({
      os: ['linux'],
      cpu: ['loong64'],
      libc: ['musl'],
    });
    expect(platformOf('@swc/core-win32-ia32-msvc')).toEqual({ os: ['win32'], cpu: ['ia32'] });
    expect(platformOf('napi-windows-process-start-time')).toEqual({ os: ['win32'] });
    expect(platformOf('fsevents')).toEqual({});
  });
});
