/**
 * Debian version ordering (Debian Policy 5.6.12, dpkg's verrevcmp):
 * [epoch:]upstream[-revision]; non-digit runs compare character by character
 * with `~` before everything (even the end of the string) and letters before
 * other characters; digit runs compare numerically.
 */
import { compareDigits, type VersionComparator } from './comparator';

const DEBIAN_VERSION = /^(?:(\d+):)?([0-9][A-Za-z0-9.+~:-]*?)(?:-([A-Za-z0-9.+~]+))?$/;

type DebianVersion = { epoch: string; upstream: string; revision: string };

export function parseDebianVersion(raw: string): DebianVersion | null {
  const match = DEBIAN_VERSION.exec(raw.trim());
  if (!match) return null;
  return { epoch: match[1] ?? '0', upstream: match[2] ?? '', revision: match[3] ?? '' };
}

function order(ch: string | undefined): number {
  if (ch === undefined) return 0;
  if (/\d/.test(ch)) return 0;
  if (/[A-Za-z]/.test(ch)) return ch.charCodeAt(0);
  if (ch === '~') return -1;
  return ch.charCodeAt(0) + 256;
}

export function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !/\d/.test(a[i] ?? '')) || (j < b.length && !/\d/.test(b[j] ?? ''))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac < bc ? -1 : 1;
      i++;
      j++;
    }
    const da = /^\d*/.exec(a.slice(i))?.[0] ?? '';
    const db = /^\d*/.exec(b.slice(j))?.[0] ?? '';
    const c = compareDigits(da === '' ? '0' : da, db === '' ? '0' : db);
    if (c !== 0) return c;
    i += da.length;
    j += db.length;
  }
  return 0;
}

export function compareDebianVersions(a: string, b: string): number | null {
  const x = parseDebianVersion(a);
  const y = parseDebianVersion(b);
  if (!x || !y) return null;
  return compareDigits(x.epoch, y.epoch) || verrevcmp(x.upstream, y.upstream) || verrevcmp(x.revision, y.revision);
}

export const dpkgComparator: VersionComparator = { scheme: 'dpkg', compare: compareDebianVersions };
