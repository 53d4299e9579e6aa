/**
 * Hostile input (issue 8, defect 5; docs/hostile-input.md): every parser and every regular
 * expression that sees user input answers within a time bound per input. One catastrophic
 * regex held the event loop for 22 s on a 37-character SBOM version, so each target gets
 * adversarial inputs (long runs of what its quantifiers accept, then a character that forces
 * failure) and a seeded random fuzz, each call timed on its own.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import * as z from 'zod';
import type { Advisory } from '../../shared/service/corpus/parse/advisory';
import { parseOsvAdvisory } from '../../shared/service/corpus/parse/osv';
import {
  MAX_MATCH_VERSION_LENGTH,
  buildAdvisoryIndex,
  matchComponent,
} from '../../shared/service/matching/advisory-index';
import { identify } from '../../shared/service/matching/component-identity';
import { parseCpe } from '../../shared/service/matching/cpe';
import { ECOSYSTEMS, type Ecosystem } from '../../shared/service/matching/ecosystems';
import { comparatorFor } from '../../shared/service/matching/version-schemes';
import { evaluateAffected, fixedVersionsAbove } from '../../shared/service/matching/osv-range';
import { namespaceWords, normalisePackageName, shortName } from '../../shared/service/matching/package-name';
import { parseApkVersion } from '../../shared/service/matching/versions/apk';
import { parseDebianVersion, verrevcmp } from '../../shared/service/matching/versions/dpkg';
import { tokenizeMavenVersion } from '../../shared/service/matching/versions/maven';
import { parseNuGetVersion } from '../../shared/service/matching/versions/nuget';
import { normalizeComposerVersion, phpVersionCompare } from '../../shared/service/matching/versions/packagist';
import { canonicalGemSegments } from '../../shared/service/matching/versions/rubygems';
import { parseLooseSemver } from '../../shared/service/matching/versions/semver-scheme';
import type { SbomComponent } from '../../shared/service/sbom/model';
import { parseSbom } from '../../shared/service/sbom/parse';
import { SbomRejectedError } from '../../shared/service/sbom/sbom-rejected-error';
import { canonicalPurl, parsePurl } from '../../shared/service/sbom/purl';
import { contentDisposition } from '../../shared/service/sboms/sboms';
import * as auditSchemas from '../../shared/service/schemas/audit';
import * as commonSchemas from '../../shared/service/schemas/common';
import * as complianceSchemas from '../../shared/service/schemas/compliance';
import * as disclosureSchemas from '../../shared/service/schemas/disclosures';
import * as dispositionSchemas from '../../shared/service/schemas/dispositions';
import * as productSchemas from '../../shared/service/schemas/products';
import * as releaseSchemas from '../../shared/service/schemas/releases';
import * as sbomSchemas from '../../shared/service/schemas/sboms';
import * as vexSchemas from '../../shared/service/schemas/vex';

// ---------------------------------------------------------------------------------------------
// Timing

/**
 * Two bounds. Up to a few thousand characters (beyond every limit that applies: versions are
 * matched up to 256 characters, request fields are capped at 5,000), 50 ms per call, where a
 * version or purl parses in microseconds; an exponential regex needs seconds on 40 characters.
 * At 100,000 characters, where only linear cost is acceptable, a call may take at most 50 ms plus
 * 50 times the same input cut to 10,000 characters: linear code takes 10 to 30 times as long
 * (more garbage to collect), quadratic code 100 times.
 */
const BOUND_MS = 50;
const GROWTH = 50;

/** An input, and for a long one the same input a tenth as long. */
type Probe = { input: string; tenth?: string };

/**
 * Milliseconds, the lesser of wall-clock time (process.hrtime) and this process's CPU time: the
 * CPU time leaves out the time other processes on a shared machine held the core, the wall time
 * the garbage collector's parallel threads.
 */
function timeOnce(run: (input: string) => unknown, input: string): number {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  try {
    run(input);
  } catch {
    // Rejecting an input is an answer; only the time it took matters here.
  }
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const { user, system } = process.cpuUsage(cpu);
  return Math.min(wallMs, (user + system) / 1000);
}

/**
 * Over the bound, measured twice more and the fastest kept: a GC pause or a busy core is not the
 * parser. Twenty times over is no noise, and not worth waiting for again.
 */
function timed(run: (input: string) => unknown, input: string, boundMs: number): number {
  let best = timeOnce(run, input);
  for (let retry = 0; retry < 2 && best > boundMs && best < 20 * boundMs; retry++)
    best = Math.min(best, timeOnce(run, input));
  return best;
}

/** A long input as `"head"… (N chars) …"tail"`, so a failure names the input without printing megabytes. */
function preview(input: string): string {
  return input.length <= 80
    ? JSON.stringify(input)
    : `${JSON.stringify(input.slice(0, 40))}… (${input.length} chars) …${JSON.stringify(input.slice(-20))}`;
}

type Slow = { input: string; ms: number; boundMs: number };

/** Runs every input; fails listing the inputs over their bound, slowest first (the slowest input leads the message). */
function expectAllWithinBound(target: string, run: (input: string) => unknown, probes: Iterable<string | Probe>): void {
  const slow: Slow[] = [];
  for (const probe of probes) {
    const { input, tenth } = typeof probe === 'string' ? { input: probe, tenth: undefined } : probe;
    const boundMs = tenth === undefined ? BOUND_MS : BOUND_MS + GROWTH * timed(run, tenth, BOUND_MS);
    const ms = timed(run, input, boundMs);
    if (ms > boundMs) slow.push({ input: preview(input), ms: Math.round(ms), boundMs: Math.round(boundMs) });
  }
  slow.sort((a, b) => b.ms - a.ms);
  expect({ target, slowest: slow.slice(0, 5), over: slow.length }).toEqual({ target, slowest: [], over: 0 });
}

// ---------------------------------------------------------------------------------------------
// Inputs

/** Characters that make a match fail after a long accepted run: punctuation, whitespace, NUL, a lone surrogate. */
const FAILING_SUFFIXES = ['!', ' ', '\n', '\u0000', '\uD800', ''];
const LONG = 100_000;
/** At 100,000 characters one failing suffix per token: the cost is quadratic growth, which any suffix shows; the 10- and 1,000-character runs try them all. */
const LONG_SUFFIXES = ['!'];

function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.max(1, Math.ceil(length / unit.length))).slice(0, Math.max(length, unit.length));
}

/**
 * Long repetitions of each token and of each pair of tokens (a digit run, a digit and a
 * separator...), after each prefix that steers a parser into the branch under attack, then
 * a failing character. Only single tokens and one suffix go to 100,000 characters, where
 * each call costs most.
 */
function* adversarial(tokens: readonly string[], prefixes: readonly string[] = ['']): Generator<string | Probe> {
  for (const prefix of prefixes) {
    for (const token of tokens) {
      for (const length of [10, 1000])
        for (const suffix of FAILING_SUFFIXES) yield prefix + repeatTo(token, length) + suffix;
      for (const suffix of LONG_SUFFIXES)
        yield { input: prefix + repeatTo(token, LONG) + suffix, tenth: prefix + repeatTo(token, LONG / 10) + suffix };
    }
    for (const first of tokens) {
      for (const second of tokens) {
        if (first === second) continue;
        for (const length of [10, 1000])
          for (const suffix of ['!', '\n']) yield prefix + repeatTo(first + second, length) + suffix;
      }
    }
  }
}

/** mulberry32: a fixed seed makes every run fuzz the same strings, so a failure reproduces. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NOISE = [
  'a',
  'Z',
  '0',
  '9',
  '.',
  '-',
  '_',
  '+',
  '~',
  ':',
  '/',
  '@',
  '%',
  '?',
  '#',
  '=',
  '&',
  '*',
  '\\',
  ' ',
  '\t',
  '\n',
  '"',
  "'",
  'é',
  '\u00a0',
  '\uD800',
  '\uDC00',
  '\u2028',
  '😀',
];

/** A few thousand strings of up to 300 characters (beyond any real version or purl) from the target's tokens and some noise. */
function* randomFuzz(tokens: readonly string[], seed: number, count = 2000): Generator<string> {
  const random = seededRandom(seed);
  const pool = [...tokens, ...tokens, ...NOISE];
  for (let i = 0; i < count; i++) {
    let out = '';
    const length = Math.floor(random() * random() * 300);
    while (out.length < length) out += pool[Math.floor(random() * pool.length)] ?? '';
    yield out;
  }
}

function* hostile(tokens: readonly string[], prefixes: readonly string[], seed: number): Generator<string | Probe> {
  yield* adversarial(tokens, prefixes);
  yield* randomFuzz(tokens, seed);
}

// ---------------------------------------------------------------------------------------------
// Regression: the input from the issue

describe('the Packagist version from issue 8', () => {
  const issueVersion = `1beta${'1'.repeat(31)}!`;

  it('normalises "1beta" + 31 x "1" + "!" within the bound (it held the event loop for 22 s)', () => {
    expectAllWithinBound('normalizeComposerVersion', normalizeComposerVersion, [issueVersion]);
    expect(normalizeComposerVersion(issueVersion)).toBeNull();
  });

  it('still reads the stability numbers the rewritten pattern must accept', () => {
    expect(normalizeComposerVersion('1.0.0-beta1.2')).toBe('1.0.0.0-beta1.2');
    expect(normalizeComposerVersion('1.0.0-RC.1-dev')).toBe('1.0.0.0-RC1-dev');
    expect(normalizeComposerVersion('2.1.0-p3')).toBe('2.1.0.0-patch3');
    expect(normalizeComposerVersion('1.0.x-dev as 1.0.0')).toBe('1.0.9999999.9999999-dev');
  });
});

// ---------------------------------------------------------------------------------------------
// Version parsers, one per scheme

const DIGITS_AND_SEPARATORS = ['1', '0', '.', '-'];

const VERSION_PARSERS: { scheme: string; parse: (input: string) => unknown; tokens: string[]; prefixes: string[] }[] = [
  {
    scheme: 'semver (npm, crates.io, Hex)',
    parse: parseLooseSemver,
    tokens: [...DIGITS_AND_SEPARATORS, '+', 'a', 'v'],
    prefixes: ['', '1.2.3-', '1.2.3+', 'v1'],
  },
  {
    scheme: 'Go',
    parse: (v) => comparatorFor('Go').compare(v, 'v1.2.3'),
    tokens: [...DIGITS_AND_SEPARATORS, 'go', 'v', '+incompatible'],
    prefixes: ['', 'v0.0.0-', 'go1.'],
  },
  {
    scheme: 'Pub',
    parse: (v) => comparatorFor('Pub').compare(v, '1.0.0+1'),
    tokens: [...DIGITS_AND_SEPARATORS, '+', 'a'],
    prefixes: ['', '1.0.0+'],
  },
  {
    scheme: 'PyPI (PEP 440)',
    parse: (v) => comparatorFor('PyPI').compare(v, '1.0'),
    tokens: [...DIGITS_AND_SEPARATORS, '_', 'a', 'b', 'rc', 'post', 'dev', '!', '+', 'v', ' '],
    prefixes: ['', '1!', '1.0+', '1.0.post', 'v'],
  },
  {
    scheme: 'Maven',
    parse: tokenizeMavenVersion,
    tokens: [...DIGITS_AND_SEPARATORS, 'alpha', 'a', 'sp', 'ga', 'final'],
    prefixes: ['', '1.0-'],
  },
  {
    scheme: 'RubyGems',
    parse: canonicalGemSegments,
    tokens: [...DIGITS_AND_SEPARATORS, 'a', 'pre'],
    prefixes: ['', '1.0.', '1-'],
  },
  {
    scheme: 'NuGet',
    parse: parseNuGetVersion,
    tokens: [...DIGITS_AND_SEPARATORS, '+', 'a', 'v'],
    prefixes: ['', '1.0.0-', '1.0.0+', '1.2.3.4-'],
  },
  {
    scheme: 'Packagist (Composer)',
    parse: normalizeComposerVersion,
    tokens: [
      ...DIGITS_AND_SEPARATORS,
      '_',
      'beta',
      'b',
      'rc',
      'p',
      'pl',
      'patch',
      'dev',
      'v',
      'x',
      '*',
      ' ',
      ' as ',
      '+',
      ':',
    ],
    prefixes: ['', '1beta', '1.0.0-RC', '2024-01-01', 'v1.', 'dev-', '1.0 as '],
  },
  {
    scheme: 'PHP version_compare',
    parse: (v) => phpVersionCompare('1.0.0', v),
    tokens: [...DIGITS_AND_SEPARATORS, '#', '_', '+', 'dev', 'p'],
    prefixes: ['', '1.0.0.'],
  },
  {
    scheme: 'Debian (dpkg)',
    parse: parseDebianVersion,
    tokens: [...DIGITS_AND_SEPARATORS, ':', '+', '~', 'a'],
    prefixes: ['', '1:', '1.0-'],
  },
  {
    scheme: 'Debian verrevcmp',
    parse: (v) => verrevcmp(v, `${v}~`),
    tokens: [...DIGITS_AND_SEPARATORS, '~', 'a', '+'],
    prefixes: [''],
  },
  {
    scheme: 'Alpine (apk)',
    parse: parseApkVersion,
    tokens: [...DIGITS_AND_SEPARATORS, '_', 'alpha', 'p', '~', 'a', '-r'],
    prefixes: ['', '1.0_', '1.0~'],
  },
];

describe('version parsers answer every hostile version within the bound', () => {
  it.each(VERSION_PARSERS.map((p, i) => [p.scheme, p, i] as const))(
    '%s',
    (_scheme, { scheme, parse, tokens, prefixes }, index) => {
      expectAllWithinBound(scheme, parse, hostile(tokens, prefixes, 1000 + index));
    },
  );

  it.each(ECOSYSTEMS.map((e) => [e]))('%s comparator, on either side', (ecosystem) => {
    const comparator = comparatorFor(ecosystem);
    const tokens = [...DIGITS_AND_SEPARATORS, 'beta', ':', '~', '_', '+', 'v', 'a'];
    expectAllWithinBound(
      ecosystem,
      (v) => [comparator.compare(v, '1.2.3'), comparator.compare('1.2.3', v), comparator.compare(v, v)],
      hostile(tokens, ['', '1beta'], 2000),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// OSV ranges, package identity, purls, CPEs

function affectedPackage(ecosystem: Ecosystem, fixed: string): Advisory['affected'][number] {
  const advisory = parseOsvAdvisory({
    id: `HOSTILE-${ecosystem}`,
    modified: '2024-01-01T00:00:00Z',
    affected: [
      {
        package: { ecosystem, name: 'target' },
        ranges: [
          { type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed }] },
          { type: 'SEMVER', events: [{ introduced: '1.0.0' }, { last_affected: '1.9.9' }] },
        ],
        versions: ['1.0.0'],
      },
    ],
  });
  return advisory.affected[0] as Advisory['affected'][number]; // one affected entry in, one out
}

/** One advisory per ecosystem for a package named like each purl below, so hostile versions reach the comparators. */
const INDEX = buildAdvisoryIndex(
  ECOSYSTEMS.map((ecosystem) =>
    parseOsvAdvisory({
      id: `HOSTILE-${ecosystem}`,
      modified: '2024-01-01T00:00:00Z',
      affected: [
        {
          package: {
            ecosystem,
            name:
              ecosystem === 'Maven'
                ? 'org.acme:target'
                : ecosystem === 'Packagist' || ecosystem === 'npm' || ecosystem === 'Go'
                  ? 'acme/target'
                  : 'target',
          },
          ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '1.2.3' }] }],
        },
      ],
    }),
  ),
);
const PURL_TYPES = [
  'npm/acme/target',
  'pypi/target',
  'maven/org.acme/target',
  'golang/acme/target',
  'cargo/target',
  'gem/target',
  'nuget/target',
  'composer/acme/target',
  'pub/target',
  'hex/target',
  'deb/debian/target',
  'apk/alpine/target',
];

const component = (fields: Partial<SbomComponent>): SbomComponent => ({
  ref: 'c1',
  name: 'target',
  cpes: [],
  licenses: [],
  ...fields,
});

describe('OSV range evaluation and matching answer every hostile version within the bound', () => {
  const tokens = [...DIGITS_AND_SEPARATORS, 'beta', ':', '~', '_', '+', 'v'];

  it.each(ECOSYSTEMS.map((e) => [e]))('%s: hostile component versions and hostile event versions', (ecosystem) => {
    const affected = affectedPackage(ecosystem, '1.2.3');
    expectAllWithinBound(
      `${ecosystem} ranges`,
      (v) => [evaluateAffected(v, affected, ecosystem), fixedVersionsAbove(v, [affected], ecosystem)],
      hostile(tokens, ['', '1beta'], 3000),
    );
    expectAllWithinBound(
      `${ecosystem} events`,
      (v) => evaluateAffected('1.2.3', affectedPackage(ecosystem, v), ecosystem),
      adversarial(tokens),
    );
  });

  it('matches components of every ecosystem, whatever their version, within the bound', () => {
    expectAllWithinBound(
      'matchComponent',
      (v) => PURL_TYPES.map((type) => matchComponent(component({ version: v, purl: `pkg:${type}` }), INDEX)),
      hostile(tokens, ['', '1beta'], 3100),
    );
  });

  it(`records a component whose version is longer than ${MAX_MATCH_VERSION_LENGTH} characters as unmatched, with the reason`, () => {
    const match = matchComponent(
      component({ version: `0.${'1'.repeat(MAX_MATCH_VERSION_LENGTH)}`, purl: 'pkg:composer/acme/target' }),
      INDEX,
    );
    const atTheLimit = matchComponent(
      component({ version: `0.${'1'.repeat(MAX_MATCH_VERSION_LENGTH - 2)}`, purl: 'pkg:composer/acme/target' }),
      INDEX,
    );

    expect(match).toMatchObject({
      componentRef: 'c1',
      mapped: false,
      unmatchedReason: 'version_too_long',
      ecosystem: 'Packagist',
      findings: [],
    });
    expect(atTheLimit).toMatchObject({
      mapped: true,
      findings: [expect.objectContaining({ advisoryId: 'HOSTILE-Packagist' })],
    });
  });
});

describe('purls, CPEs and package names are read within the bound', () => {
  const purlTokens = ['pkg:', 'npm/', '@', '%', '%2F', '%E0%A4%A', '/', '?', '=', '&', '#', 'a', '1', ':', '.', '+'];

  it('parses and canonicalises hostile purls', () => {
    expectAllWithinBound(
      'parsePurl',
      (p) => [parsePurl(p), canonicalPurl(p)],
      hostile(purlTokens, ['', 'pkg:npm/', 'pkg:maven/a/b@1?', 'pkg:deb/debian/a@1#'], 4000),
    );
  });

  it('identifies components from hostile purl qualifiers (repository_url, distro, upstream)', () => {
    const qualifiers = ['/', 'a', '1', '.', '-', '@', ' ', 'x'];
    expectAllWithinBound(
      'identify qualifiers',
      (q) => [
        identify(component({ purl: `pkg:composer/acme/target@1.0.0?repository_url=${encodeURIComponent(q)}` }), INDEX),
        identify(component({ purl: `pkg:deb/ubuntu/target@1.0?distro=${encodeURIComponent(q)}` }), INDEX),
        identify(component({ purl: `pkg:apk/alpine/target@1.0?distro=${encodeURIComponent(q)}` }), INDEX),
        identify(component({ purl: `pkg:deb/debian/target@1.0?upstream=${encodeURIComponent(q)}` }), INDEX),
      ],
      hostile(qualifiers, ['', 'https://repo.example/', 'ubuntu-', 'alpine-3.'], 4100),
    );
  });

  it('parses hostile CPEs and identifies components by them', () => {
    const cpeTokens = ['cpe:2.3:', 'cpe:/', ':', '\\', '\\:', '*', '-', 'a', '%', '%2', '~', '_', '.'];
    expectAllWithinBound(
      'parseCpe',
      (c) => [parseCpe(c), identify(component({ cpes: [c] }), INDEX)],
      hostile(cpeTokens, ['', 'cpe:2.3:a:', 'cpe:/a:', 'cpe:2.3:a:acme_project:target:1:*:*:*:*:'], 4200),
    );
  });

  it('normalises hostile package names in every ecosystem', () => {
    const nameTokens = ['a', '-', '_', '.', '/', ':', '@', ' ', 'A'];
    expectAllWithinBound(
      'package names',
      (n) =>
        ECOSYSTEMS.map((e) => {
          const key = normalisePackageName(e, n);
          return [shortName(key), namespaceWords(key)];
        }),
      hostile(nameTokens, [''], 4300),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// SBOM documents, request schemas, file names

describe('SBOM fields are read within the bound', () => {
  const tokens = ['1', '.', '-', 'a', ' ', 'v', 'pkg:', '/', ':', 'Tool: '];

  it('parses CycloneDX documents whose every string field is hostile', () => {
    expectAllWithinBound(
      'CycloneDX',
      (s) =>
        parseSbom(
          JSON.stringify({
            bomFormat: 'CycloneDX',
            specVersion: '1.5',
            metadata: { tools: [{ name: s, version: s }], component: { name: s, version: s } },
            components: [
              {
                'bom-ref': s,
                type: 'library',
                name: s,
                version: s,
                group: s,
                purl: `pkg:npm/${s}@${s}`,
                cpe: s,
                licenses: [{ license: { id: s } }, { expression: s }],
              },
            ],
          }),
        ),
      hostile(tokens, ['', '1beta'], 5000),
    );
  });

  it('parses SPDX documents whose every string field is hostile (the creator tool name/version split included)', () => {
    expectAllWithinBound(
      'SPDX',
      (s) =>
        parseSbom(
          JSON.stringify({
            spdxVersion: 'SPDX-2.3',
            SPDXID: 'SPDXRef-DOCUMENT',
            name: s,
            creationInfo: { creators: [`Tool: ${s}`, `Tool: x-${s}`, `Tool: x ${s}`] },
            packages: [
              {
                SPDXID: `SPDXRef-${s}`,
                name: s,
                versionInfo: s,
                licenseConcluded: s,
                primaryPackagePurpose: s,
                externalRefs: [
                  { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: s },
                  { referenceCategory: 'SECURITY', referenceType: 'cpe23Type', referenceLocator: s },
                ],
              },
            ],
          }),
        ),
      hostile(tokens, ['', 'tool v', 'a-1-1-1-'], 5100),
    );
  });
});

/** The five XML special characters escaped, so a hostile string reaches the field instead of breaking the markup. */
const xmlEscape = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A CycloneDX XML document with `s` in every field, raw (mostly malformed) or escaped. */
const cycloneDxXml = (s: string) =>
  `<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><metadata><tools><components><component type="application"><name>${s}</name><version>${s}</version></component></components></tools>` +
  `<component type="application" bom-ref="${s}"><name>${s}</name></component></metadata><components><component type="library" bom-ref="${s}"><group>${s}</group><name>${s}</name><version>${s}</version>` +
  `<purl>pkg:npm/${s}@${s}</purl><cpe>${s}</cpe><licenses><license><id>${s}</id></license><expression>${s}</expression></licenses><properties><property name="${s}">${s}</property></properties></component></components></bom>`;

describe('CycloneDX XML and SPDX tag-value are read within the bound (issue 9, defect 9)', () => {
  const tokens = [
    '1',
    '.',
    '-',
    'a',
    ' ',
    '<',
    '>',
    '&',
    '&amp;',
    '&#38;',
    '&#x41;',
    '"',
    '<text>',
    '</text>',
    ':',
    'Tool: ',
    '\n',
  ];

  // Fewer tokens and fuzz strings than the JSON targets: each call parses a whole XML document.
  const markup = ['1', '<', '>', '&', '&#38;', '"', ':'];
  /**
   * A 1,000-character value in each of 20 fields (4 times longer once escaped) makes a document of
   * up to 80 KB: bounded like the long inputs, by growth against the same value a tenth as long.
   */
  const byGrowth = (probes: Iterable<string | Probe>): (string | Probe)[] =>
    [...probes].map((probe) =>
      typeof probe === 'string' && probe.length >= 1000
        ? { input: probe, tenth: probe.slice(0, probe.length / 10) + probe.slice(-1) }
        : probe,
    );

  it('parses CycloneDX XML whose every field is hostile, raw or escaped', () => {
    expectAllWithinBound(
      'CycloneDX XML raw',
      (s) => parseSbom(cycloneDxXml(s)),
      byGrowth([...adversarial(markup, ['', '<!--']), ...randomFuzz(tokens, 5200, 300)]),
    );
    expectAllWithinBound(
      'CycloneDX XML escaped',
      (s) => parseSbom(cycloneDxXml(xmlEscape(s))),
      byGrowth([...adversarial(markup, ['&#']), ...randomFuzz(tokens, 5300, 300)]),
    );
  });

  it('parses SPDX tag-value whose every value is hostile', () => {
    const tagValue = (s: string) =>
      [
        'SPDXVersion: SPDX-2.3',
        'SPDXID: SPDXRef-DOCUMENT',
        `DocumentName: ${s}`,
        `Creator: Tool: ${s}`,
        `PackageName: ${s}`,
        `SPDXID: SPDXRef-${s}`,
        `PackageVersion: ${s}`,
        `PackageComment: <text>${s}</text>`,
        `ExternalRef: PACKAGE-MANAGER purl pkg:npm/${s}@${s}`,
        `ExternalRef: SECURITY cpe23Type ${s}`,
        `Relationship: SPDXRef-DOCUMENT DESCRIBES SPDXRef-${s}`,
      ].join('\n');
    expectAllWithinBound(
      'SPDX tag-value',
      (s) => parseSbom(tagValue(s)),
      hostile(tokens, ['', '<text>', 'PackageName: '], 5400),
    );
  });

  it('answers long documents in linear time: 100,000 components, lines of a <text> block, entity references', () => {
    const component =
      '<component type="library"><name>a</name><version>1</version><purl>pkg:npm/a@1</purl></component>';
    const xmlOf = (count: number) =>
      `<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components>${component.repeat(count)}</components></bom>`;
    const textOf = (count: number) =>
      `SPDXVersion: SPDX-2.3\nPackageName: a\nPackageComment: <text>${'line\n'.repeat(count)}`;
    const entitiesOf = (count: number) =>
      xmlOf(1).replace('<name>a</name>', `<name>${'&amp;&#38;'.repeat(count)}</name>`);
    expectAllWithinBound('long XML and tag-value', parseSbom, [
      { input: xmlOf(20_000), tenth: xmlOf(2_000) },
      { input: textOf(100_000), tenth: textOf(10_000) },
      { input: entitiesOf(100_000), tenth: entitiesOf(10_000) },
    ]);
  });

  it.each([
    [
      'billion laughs',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>&lol3;</name></component></components></bom>',
    ],
    [
      'an external entity (XXE)',
      '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components><component type="library"><name>&xxe;</name></component></components></bom>',
    ],
    [
      'a parameter entity',
      '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY % p SYSTEM "http://127.0.0.1:1/x.dtd"> %p;]><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components/></bom>',
    ],
    [
      'an internal DTD subset without entities',
      '<!DOCTYPE bom><bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components/></bom>',
    ],
  ])('refuses %s before parsing: no entity is ever expanded or fetched', (_label, content) => {
    expect(() => parseSbom(content)).toThrow(/DOCTYPE or ENTITY declaration is not accepted/);
    expect(timed(parseSbom, content, BOUND_MS)).toBeLessThanOrEqual(BOUND_MS);
  });

  it("refuses nesting deeper than the parser's cap with a 422, not a stack overflow", () => {
    const nested = (depth: number) =>
      `<bom xmlns="http://cyclonedx.org/schema/bom/1.6"><components>${'<component><name>a</name><components>'.repeat(depth)}${'</components></component>'.repeat(depth)}</components></bom>`;
    for (const depth of [60, 100_000]) expect(() => parseSbom(nested(depth))).toThrow(SbomRejectedError);
    expect(parseSbom(nested(40)).components).toHaveLength(40);
    expectAllWithinBound('deep XML', parseSbom, [{ input: nested(100_000), tenth: nested(10_000) }]);
  });
});

const SCHEMA_MODULES = {
  auditSchemas,
  commonSchemas,
  complianceSchemas,
  disclosureSchemas,
  dispositionSchemas,
  productSchemas,
  releaseSchemas,
  sbomSchemas,
  vexSchemas,
};

/** Every exported zod schema; objects get the hostile string in each field (query strings, path parameters and bodies alike). */
function schemaTargets(): { name: string; parse: (input: string) => unknown }[] {
  const out: { name: string; parse: (input: string) => unknown }[] = [];
  for (const [moduleName, module] of Object.entries(SCHEMA_MODULES)) {
    for (const [exportName, value] of Object.entries(module)) {
      if (!(value instanceof z.ZodType)) continue;
      const shape = value instanceof z.ZodObject ? Object.keys(value.shape) : [];
      out.push({
        name: `${moduleName}.${exportName}`,
        parse: (input) => [
          value.safeParse(input),
          value.safeParse(Object.fromEntries(shape.map((key) => [key, input]))),
        ],
      });
    }
  }
  return out;
}

describe('request schemas (bodies, query strings, path parameters) validate hostile strings within the bound', () => {
  const targets = schemaTargets();
  const tokens = ['a', '1', '-', '_', '.', ':', '/', '+', 'T', 'Z', '@', ' ', 'pkg:a/'];

  it('covers the schema modules', () => {
    expect(targets.length).toBeGreaterThan(40);
  });

  it.each(targets.map((t) => [t.name, t] as const))('%s', (_name, { name, parse }) => {
    expectAllWithinBound(name, parse, adversarial(tokens, ['', 'pkg:npm/', '2024-01-01T']));
  });
});

describe('Content-Disposition for stored file names', () => {
  it('builds the header for hostile names within the bound', () => {
    expectAllWithinBound(
      'contentDisposition',
      (name) => contentDisposition(name, 'sbom.json'),
      hostile(['a', '"', '%', ';', '\\', '/', '\uD800', '\uDC00', '😀', 'é', ' '], [''], 6000),
    );
  });

  it('answers a name with a lone surrogate (valid JSON) instead of throwing URIError', () => {
    expect(contentDisposition('bom\uD800.json', 'sbom.json')).toBe(
      `attachment; filename="bom_.json"; filename*=UTF-8''bom%EF%BF%BD.json`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Every regex literal in the code that sees requests

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Regex literals and `new RegExp('literal')` in shared/ and functions/, found by the TypeScript parser, not by a pattern. */
function regexesInSource(): { where: string; regex: RegExp }[] {
  const found: { where: string; regex: RegExp }[] = [];
  for (const file of [...sourceFiles(join(ROOT, 'shared')), ...sourceFiles(join(ROOT, 'functions'))]) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) =>
      `${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) {
        const text = node.text;
        const slash = text.lastIndexOf('/');
        found.push({
          where: where(node),
          regex: new RegExp(text.slice(1, slash), text.slice(slash + 1).replace(/[gy]/g, '')),
        });
      } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
        const [pattern, flags] = node.arguments ?? [];
        if (pattern && ts.isStringLiteralLike(pattern))
          found.push({
            where: where(node),
            regex: new RegExp(
              pattern.text,
              flags && ts.isStringLiteralLike(flags) ? flags.text.replace(/[gy]/g, '') : '',
            ),
          });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** What a pattern's quantifiers accept: its literal characters, its literal words, and a representative of each common class. */
function tokensOf(regex: RegExp): string[] {
  const words = regex.source.match(/[A-Za-z]{2,}/g) ?? [];
  const literals = [...new Set(regex.source.replace(/\\[dDsSwWbB]/g, '').replace(/[\\^$()[\]{}|?*+]/g, ''))];
  return [...new Set(['1', 'a', 'A', ' ', '-', '.', '/', ...words.slice(0, 6), ...literals.slice(0, 24)])];
}

describe('every regex literal in shared/ and functions/ runs within the bound on inputs built from its own pattern', () => {
  const regexes = regexesInSource();

  it('finds the regexes (a parser change must not leave this sweep empty)', () => {
    expect(regexes.length).toBeGreaterThan(100);
  });

  it.each(regexes.map((r) => [r.where, r.regex.source.slice(0, 60), r.regex] as const))(
    '%s %s',
    (where, _source, regex) => {
      const tokens = tokensOf(regex);
      const prefixes = ['', ...(regex.source.match(/[A-Za-z]{2,}[^A-Za-z\\(]?/g) ?? []).slice(0, 2)];
      expectAllWithinBound(where, (input) => regex.exec(input), adversarial(tokens, prefixes));
    },
  );
});
