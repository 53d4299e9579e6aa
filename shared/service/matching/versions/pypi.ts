/** PEP 440 ordering (epochs, pre/post/dev releases, local versions) via @renovatebot/pep440. */
import { compare, parse } from '@renovatebot/pep440';
import { sign, type VersionComparator } from './comparator';

export const pypiComparator: VersionComparator = {
  scheme: 'pep440',
  compare(a, b) {
    if (parse(a.trim()) === null || parse(b.trim()) === null) return null;
    // The library returns any negative/positive number; callers expect -1/0/1.
    return sign(compare(a.trim(), b.trim()));
  },
};
