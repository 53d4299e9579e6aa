/** SBOM documents in every accepted encoding are read within the bound (test/support/hostile-input.ts). */
import { describe, expect, it } from '@jest/globals';
import { parseSbom } from '../../shared/service/sbom/parse';
import { SbomRejectedError } from '../../shared/service/sbom/sbom-rejected-error';
import {
  BOUND_MS,
  adversarial,
  expectAllWithinBound,
  hostile,
  randomFuzz,
  timed,
  type Probe,
} from '../support/hostile-input';

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
