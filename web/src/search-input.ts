/**
 * What the portfolio search box was given: an advisory id (GET /api/vulnerabilities?advisory=), a package
 * URL (GET /api/components?purl=), or a package name with the ecosystem the user chose
 * (GET /api/components?ecosystem=&name=). No DOM, so a unit test reads it.
 */

/** Prefixes of the advisory databases the corpus imports (OSV's own ids and CVE). */
export const ADVISORY_PREFIXES = ['CVE', 'GHSA', 'GO', 'PYSEC', 'RUSTSEC', 'OSV'] as const;

const ADVISORY = new RegExp(`^(${ADVISORY_PREFIXES.join('|')})-(\\S+)$`, 'i');

export type SearchInput =
  | { kind: 'advisory'; advisory: string }
  | { kind: 'purl'; purl: string }
  | { kind: 'package'; ecosystem: string; name: string }
  | { kind: 'unclear'; hint: string }
  | { kind: 'empty' };

export const SEARCH_HINT =
  `Type an advisory id (${ADVISORY_PREFIXES.map((prefix) => `${prefix}-…`).join(', ')}), ` +
  'a package URL (pkg:npm/lodash, pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1), ' +
  'or a package name and choose its ecosystem.';

export function classifySearch(raw: string, ecosystem: string): SearchInput {
  const text = raw.trim();
  if (!text) return { kind: 'empty' };
  const advisory = ADVISORY.exec(text);
  if (advisory) {
    const prefix = advisory[1]!.toUpperCase();
    // CVE ids are upper case throughout; GHSA ids keep OSV's lower-case suffix.
    const rest = prefix === 'CVE' ? advisory[2]!.toUpperCase() : advisory[2]!;
    return { kind: 'advisory', advisory: `${prefix}-${rest}` };
  }
  if (/^pkg:/i.test(text)) return { kind: 'purl', purl: text };
  if (ecosystem) return { kind: 'package', ecosystem, name: text };
  return { kind: 'unclear', hint: SEARCH_HINT };
}
