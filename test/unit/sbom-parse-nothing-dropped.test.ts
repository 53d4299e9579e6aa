import { describe, expect, it } from '@jest/globals';
import { parseSbom } from '../../shared/service/sbom/parse';
import { sbomFixture } from '../support/sbom-fixtures';

describe('nothing dropped silently (issue 9, defect 8)', () => {
  it('keeps every package of an SPDX document that DESCRIBES each of them (a flat list): log4j-core 2.12.1 is scanned', () => {
    // Before: component_count 0 and a "completed" scan with no findings.
    const sbom = parseSbom(sbomFixture('handmade_spdx-2.3_flat-describes-log4j.json'));

    expect(sbom.components.map((c) => c.purl)).toEqual([
      'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.1',
      'pkg:maven/org.apache.logging.log4j/log4j-api@2.12.1',
      'pkg:maven/org.slf4j/slf4j-api@1.7.30',
    ]);
    expect(sbom.skipped).toEqual([]);
    expect(
      parseSbom(sbomFixture('spdx-2.3_pypi_sbom4python-0.12.0_requirements-flat-describes.json')).components.map(
        (c) => c.name,
      ),
    ).toEqual(['lib4sbom', 'sbom4files', 'sbom2dot', 'lib4package', 'importlib_metadata', 'toml']);
  });

  it('excludes a described package only when it is the single root of others', () => {
    const doc = (relationships: object[]) =>
      JSON.stringify({
        spdxVersion: 'SPDX-2.3',
        SPDXID: 'SPDXRef-DOCUMENT',
        packages: [
          { SPDXID: 'SPDXRef-app', name: 'app' },
          { SPDXID: 'SPDXRef-lib', name: 'lib' },
          { SPDXID: 'SPDXRef-other', name: 'other' },
        ],
        relationships,
      });
    const describes = (id: string) => ({
      spdxElementId: 'SPDXRef-DOCUMENT',
      relationshipType: 'DESCRIBES',
      relatedSpdxElement: id,
    });
    const names = (content: string) => parseSbom(content).components.map((c) => c.name);

    // The single described package contains another: it is the subject.
    expect(
      names(
        doc([
          describes('SPDXRef-app'),
          { spdxElementId: 'SPDXRef-app', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-lib' },
        ]),
      ),
    ).toEqual(['lib', 'other']);
    // The inverse spelling ties it just the same.
    expect(
      names(
        doc([
          describes('SPDXRef-app'),
          { spdxElementId: 'SPDXRef-lib', relationshipType: 'DEPENDENCY_OF', relatedSpdxElement: 'SPDXRef-app' },
        ]),
      ),
    ).toEqual(['lib', 'other']);
    // Described but the root of nothing: a component like the others.
    expect(names(doc([describes('SPDXRef-app')]))).toEqual(['app', 'lib', 'other']);
    // Two described roots: neither is "the" subject.
    expect(
      names(
        doc([
          describes('SPDXRef-app'),
          describes('SPDXRef-lib'),
          { spdxElementId: 'SPDXRef-app', relationshipType: 'CONTAINS', relatedSpdxElement: 'SPDXRef-other' },
        ]),
      ),
    ).toEqual(['app', 'lib', 'other']);
  });

  it('keeps the components nested under CycloneDX metadata.component: jackson-databind is scanned', () => {
    const sbom = parseSbom(sbomFixture('handmade_cyclonedx-1.5_subject-subcomponents.json'));

    expect(sbom.components.map((c) => [c.name, c.version, c.ref])).toEqual([
      ['jackson-databind', '2.10.3', 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.3?type=jar'],
      ['jackson-annotations', '2.10.3', 'pkg:maven/com.fasterxml.jackson.core/jackson-annotations@2.10.3?type=jar'],
      ['slf4j-api', '1.7.30', 'pkg:maven/org.slf4j/slf4j-api@1.7.30?type=jar'],
    ]);
    expect(sbom.subject).toEqual({ name: 'acme-orders', version: '2.0.0' });
    expect(sbom.skipped).toEqual([{ reason: 'document_subject', count: 1, examples: ['acme-orders@2.0.0'] }]);
  });

  it('keeps two different components that share a bom-ref (snakeyaml), and merges a true repetition as a counted duplicate', () => {
    const sbom = parseSbom(sbomFixture('handmade_cyclonedx-1.4_shared-bom-ref.json'));

    expect(sbom.components).toEqual([
      {
        ref: 'maven-dependency',
        name: 'commons-io',
        version: '2.6',
        purl: 'pkg:maven/commons-io/commons-io@2.6',
        cpes: [],
        licenses: ['Apache-2.0'],
        group: 'commons-io',
        type: 'library',
      },
      {
        ref: 'maven-dependency#2',
        name: 'snakeyaml',
        version: '1.26',
        purl: 'pkg:maven/org.yaml/snakeyaml@1.26',
        cpes: [],
        licenses: [],
        group: 'org.yaml',
        type: 'library',
      },
    ]);
    expect(sbom.skipped).toEqual([
      { reason: 'document_subject', count: 1, examples: ['acme-config-service'] },
      { reason: 'duplicate', count: 1, examples: ['maven-dependency'] },
    ]);
  });

  it('counts entries it cannot use, with the reason and where they are', () => {
    const sbom = parseSbom(
      JSON.stringify({
        bomFormat: 'CycloneDX',
        specVersion: '1.6',
        components: [null, { type: 'library', description: 'no name, purl or cpe' }, { name: 'kept' }],
      }),
    );

    expect(sbom.components.map((c) => c.name)).toEqual(['kept']);
    expect(sbom.skipped).toEqual([
      { reason: 'not_an_object', count: 1, examples: ['components[0]'] },
      { reason: 'no_identity', count: 1, examples: ['components[1]'] },
    ]);
  });

  it('counts the subtrees cut off below the nesting limit', () => {
    let node: Record<string, unknown> = { name: 'leaf-a' };
    node = { name: 'deepest', components: [node, { name: 'leaf-b' }] };
    for (let depth = 0; depth < 64; depth++) node = { name: `level-${depth}`, components: [node] };

    const sbom = parseSbom(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [node] }));

    expect(sbom.components).toHaveLength(65);
    expect(sbom.skipped).toEqual([
      { reason: 'nesting_too_deep', count: 2, examples: [expect.stringMatching(/^components\[0\]\.components\[0\]/)] },
    ]);
  });
});
