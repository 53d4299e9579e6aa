/**
 * The console's portfolio search box (web/src/search-input.ts): which API question an input asks. Advisory ids
 * go to `?advisory=`, package URLs to `?purl=`, other text to `ecosystem=` + `name=` once an ecosystem is chosen;
 * without one the user is told what to type.
 */
import { describe, expect, it } from '@jest/globals';
import { classifySearch, SEARCH_HINT } from '../../web/src/search-input';

describe('the portfolio search box', () => {
  it.each([
    ['CVE-2021-44228', 'CVE-2021-44228'],
    [' cve-2021-44228 ', 'CVE-2021-44228'],
    ['ghsa-jfh8-c2jp-5v3q', 'GHSA-jfh8-c2jp-5v3q'],
    ['GO-2022-0229', 'GO-2022-0229'],
    ['PYSEC-2021-19', 'PYSEC-2021-19'],
    ['RUSTSEC-2021-0001', 'RUSTSEC-2021-0001'],
    ['OSV-2020-111', 'OSV-2020-111'],
  ])('asks for the findings of advisory %s', (input, advisory) => {
    expect(classifySearch(input, 'npm')).toEqual({ kind: 'advisory', advisory });
  });

  it('asks where a package URL ships, whatever ecosystem is chosen', () => {
    expect(classifySearch('pkg:npm/lodash@4.17.20', 'PyPI')).toEqual({ kind: 'purl', purl: 'pkg:npm/lodash@4.17.20' });
  });

  it('asks for a package by name in the chosen ecosystem', () => {
    expect(classifySearch('org.apache.logging.log4j:log4j-core', 'Maven')).toEqual({
      kind: 'package',
      ecosystem: 'Maven',
      name: 'org.apache.logging.log4j:log4j-core',
    });
    // A name that merely starts like an advisory prefix is a name.
    expect(classifySearch('golang-lru', 'npm')).toEqual({ kind: 'package', ecosystem: 'npm', name: 'golang-lru' });
  });

  it('says what to type for a bare name without an ecosystem, and nothing for an empty box', () => {
    expect(classifySearch('lodash', '')).toEqual({ kind: 'unclear', hint: SEARCH_HINT });
    expect(SEARCH_HINT).toMatch(/CVE-…, GHSA-…, GO-…, PYSEC-…, RUSTSEC-…, OSV-…/);
    expect(classifySearch('   ', '')).toEqual({ kind: 'empty' });
  });
});
