import { describe, expect, it } from '@jest/globals';
import { parseSbom } from '../../shared/service/sbom/parse';
import { SbomRejectedError } from '../../shared/service/sbom/sbom-rejected-error';
import { sbomFixture } from '../support/sbom-fixtures';

describe('format detection', () => {
  it('answers a file that is none of the accepted formats with a 422 naming them', () => {
    const content = 'name,version\nlodash,4.17.20\n';

    expect(() => parseSbom(content, 'deps.csv')).toThrow(
      'not a supported SBOM format (file name "deps.csv"): accepted are CycloneDX 1.2-1.7 (JSON or XML), SPDX 2.2/2.3 (JSON or tag-value)',
    );
  });

  it("takes a .spdx name as a hint: a tag-value file with a bad first line gets the tag-value parser's answer", () => {
    expect(() => parseSbom('DocumentName: x\nSPDXID: SPDXRef-DOCUMENT\n', 'app.spdx')).toThrow('without SPDXVersion');
  });

  it('decides by content, not by name: JSON named .xml is read as JSON', () => {
    expect(parseSbom(sbomFixture('handmade_cyclonedx-1.3_cpe-only.json'), 'bom.xml').encoding).toBe('json');
  });
});

describe('parseSbom rejections', () => {
  const reject = (content: string) => () => parseSbom(content);

  it.each([
    ['not JSON', '{"bomFormat": "CycloneDX",', /not valid JSON/],
    ['a JSON array', '[1, 2]', /not a JSON object/],
    ['JSON null', 'null', /not a JSON object/],
    ['an unknown JSON document', '{"hello": "world"}', /not a supported SBOM format/],
    [
      'CycloneDX 1.1',
      '{"bomFormat": "CycloneDX", "specVersion": "1.1", "components": []}',
      /specVersion 1\.1 is not supported/,
    ],
    [
      'CycloneDX 2.0',
      '{"bomFormat": "CycloneDX", "specVersion": "2.0", "components": []}',
      /specVersion 2\.0 is not supported/,
    ],
    ['CycloneDX without specVersion', '{"bomFormat": "CycloneDX", "components": []}', /without specVersion/],
    [
      'CycloneDX without components',
      '{"bomFormat": "CycloneDX", "specVersion": "1.5", "metadata": {}}',
      /no components array/,
    ],
    [
      'CycloneDX with components as an object',
      '{"bomFormat": "CycloneDX", "specVersion": "1.5", "components": {}}',
      /no components array/,
    ],
    ['SPDX 2.1', '{"spdxVersion": "SPDX-2.1", "packages": []}', /SPDX version SPDX-2\.1 is not supported/],
    ['SPDX without packages', '{"spdxVersion": "SPDX-2.3", "SPDXID": "SPDXRef-DOCUMENT"}', /no packages array/],
    ['SPDX 3 JSON-LD', '{"@context": "https://spdx.org/rdf/3.0.1/spdx-context.jsonld", "@graph": []}', /SPDX 3/],
  ])('rejects %s with a typed 422 error', (_label, content, reason) => {
    expect(reject(content)).toThrow(SbomRejectedError);
    expect(reject(content)).toThrow(reason);
    try {
      parseSbom(content);
    } catch (error) {
      expect(error).toMatchObject({ status: 422, code: 'sbom_rejected' });
    }
  });

  it('accepts an empty components array', () => {
    expect(parseSbom('{"bomFormat": "CycloneDX", "specVersion": "1.4", "components": []}').components).toEqual([]);
  });

  it('never crashes on odd but valid JSON', () => {
    const odd = JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      metadata: { tools: 'syft', component: 'not-an-object' },
      components: [
        null,
        1,
        'x',
        [],
        {},
        { name: 42, version: 1.5, licenses: [{}, { license: null }, 'MIT'], components: 'nope' },
        { name: 'deep', components: [{ components: [{ purl: 'pkg:npm/leaf@1.0.0' }] }] },
        { cpe: 'cpe:/a:x:y:1' },
        { purl: 17, name: 'p' },
      ],
    });

    const sbom = parseSbom(odd);

    expect(sbom.subject).toBeNull();
    expect(sbom.toolName).toBeNull();
    expect(sbom.components.map((c) => [c.name, c.version ?? null])).toEqual([
      ['42', '1.5'],
      ['deep', null],
      ['leaf', '1.0.0'],
      ['cpe:/a:x:y:1', null],
      ['p', null],
    ]);
  });

  it('never crashes on odd SPDX packages', () => {
    const odd = JSON.stringify({
      spdxVersion: 'SPDX-2.3',
      documentDescribes: 'SPDXRef-x',
      relationships: [null, { relationshipType: 'DESCRIBES' }],
      creationInfo: { creators: 'Tool: x' },
      packages: [
        null,
        {},
        {
          SPDXID: 'SPDXRef-a',
          externalRefs: [null, { referenceType: 'purl' }, { referenceType: 'purl', referenceLocator: 'pkg:npm/a@1' }],
        },
      ],
    });

    expect(parseSbom(odd).components).toEqual([
      { ref: 'packages[1]', name: 'packages[1]', cpes: [], licenses: [] },
      { ref: 'SPDXRef-a', name: 'a', version: '1', purl: 'pkg:npm/a@1', cpes: [], licenses: [] },
    ]);
  });
});
