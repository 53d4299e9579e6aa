/**
 * Alpine apk version ordering (apk-tools, Gentoo-style):
 * digits(.digits)*[letter](_suffix[digits])*[~hash][-r digits].
 * Pre-release suffixes alpha < beta < pre < rc sort before the plain version,
 * cvs < svn < git < hg < p after it; -rN is the package revision.
 */
import { compareDigits, compareStrings, type VersionComparator } from './comparator';

const APK_VERSION =
  /^(\d+(?:\.\d+)*)([a-z]?)((?:_(?:alpha|beta|pre|rc|cvs|svn|git|hg|p)\d*)*)(?:~[0-9a-f]+)?(?:-r(\d+))?$/;
const SUFFIX_RANK: Record<string, number> = {
  alpha: 0,
  beta: 1,
  pre: 2,
  rc: 3,
  '': 4,
  cvs: 5,
  svn: 6,
  git: 7,
  hg: 8,
  p: 9,
};

type ApkVersion = { numbers: string[]; letter: string; suffixes: { name: string; number: string }[]; revision: string };

export function parseApkVersion(raw: string): ApkVersion | null {
  const match = APK_VERSION.exec(raw.trim());
  if (!match) return null;
  const suffixes = (match[3] ?? '')
    .split('_')
    .filter(Boolean)
    .map((s) => {
      const m = /^([a-z]+)(\d*)$/.exec(s);
      return { name: m?.[1] ?? s, number: m?.[2] || '0' };
    });
  return { numbers: (match[1] ?? '0').split('.'), letter: match[2] ?? '', suffixes, revision: match[4] ?? '0' };
}

export function compareApkVersions(a: string, b: string): number | null {
  const x = parseApkVersion(a);
  const y = parseApkVersion(b);
  if (!x || !y) return null;
  for (let i = 0; i < Math.max(x.numbers.length, y.numbers.length); i++) {
    const p = x.numbers[i];
    const q = y.numbers[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const c = compareDigits(p, q);
    if (c !== 0) return c;
  }
  const letters = compareStrings(x.letter, y.letter);
  if (letters !== 0) return letters;
  for (let i = 0; i < Math.max(x.suffixes.length, y.suffixes.length); i++) {
    const p = x.suffixes[i] ?? { name: '', number: '0' };
    const q = y.suffixes[i] ?? { name: '', number: '0' };
    const rank = (SUFFIX_RANK[p.name] ?? 4) - (SUFFIX_RANK[q.name] ?? 4);
    if (rank !== 0) return rank < 0 ? -1 : 1;
    const c = compareDigits(p.number, q.number);
    if (c !== 0) return c;
  }
  return compareDigits(x.revision, y.revision);
}

export const apkComparator: VersionComparator = { scheme: 'apk', compare: compareApkVersions };
