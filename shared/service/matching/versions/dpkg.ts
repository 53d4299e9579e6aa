/**
 * Debian version ordering (Debian Policy 5.6.12, dpkg's verrevcmp):
 * [epoch:]upstream[-revision]; non-digit runs compare character by character
 * with `~` before everything (even the end of the string) and letters before
 * other characters; digit runs compare numerically.
 */
import { compareDigits, type VersionComparator } from './comparator';

// One pattern with a lazy upstream and an optional revision retried the revision at every
// hyphen (quadratic in the hyphens); the split below reads the same grammar.
const UPSTREAM = /^[0-9][A-Za-z0-9.+~:-]*$/;
const REVISION = /^[A-Za-z0-9.+~]+$/;

type DebianVersion = { epoch: string; upstream: string; revision: string };

export function parseDebianVersion(raw: string): DebianVersion | null {
  const version = raw.trim();
  const epoch = /^(\d+):/.exec(version);
  // "1:" alone is no epoch but an upstream version ending in a colon, as the policy grammar allows.
  return (epoch && splitRevision(epoch[1] ?? '0', version.slice(epoch[0].length))) ?? splitRevision('0', version);
}

/** The revision follows the last hyphen (it cannot contain one); without a valid one, all is upstream. */
function splitRevision(epoch: string, rest: string): DebianVersion | null {
  if (!UPSTREAM.test(rest)) return null;
  const hyphen = rest.lastIndexOf('-');
  const revision = hyphen === -1 ? '' : rest.slice(hyphen + 1);
  return REVISION.test(revision)
    ? { epoch, upstream: rest.slice(0, hyphen), revision }
    : { epoch, upstream: rest, revision: '' };
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
