import { describe, expect, it } from '@jest/globals';
import { parseSbom } from '../../shared/service/sbom/parse';
import { SbomRejectedError } from '../../shared/service/sbom/sbom-rejected-error';
import { sbomFixture } from '../support/sbom-fixtures';

describe('SPDX inventory rules', () => {
  it('excludes the package a DESCRIBES relationship names and reads purl and CPE externalRefs', () => {
    const sbom = parseSbom(sbomFixture('handmade_spdx-2.3_describes-relationship.json'));

    expect(sbom.components.map((c) => c.name)).toEqual([
      'Flask',
      'Django',
      'Pillow',
      'urllib3',
      'github.com/docker/distribution',
      'zlib',
      'static/app.bundle.js',
    ]);
    expect(sbom.components[0]).toEqual({
      ref: 'SPDXRef-Package-python-Flask-1',
      name: 'Flask',
      version: '2.0.1',
      purl: 'pkg:pypi/Flask@2.0.1',
      cpes: ['cpe:2.3:a:palletsprojects:flask:2.0.1:*:*:*:*:python:*:*'],
      licenses: ['BSD-3-Clause'],
    });
    expect(sbom.components.find((c) => c.name === 'zlib')).toMatchObject({
      cpes: ['cpe:/a:zlib:zlib:1.2.11'],
      licenses: ['Zlib'],
    });
    expect(sbom.components.find((c) => c.name === 'static/app.bundle.js')?.purl).toBeUndefined();
  });

  it('excludes documentDescribes packages and accepts both PACKAGE-MANAGER spellings', () => {
    const sbom = parseSbom(sbomFixture('handmade_spdx-2.2_document-describes.json'));

    expect(sbom.components.map((c) => c.purl)).toEqual([
      'pkg:nuget/Newtonsoft.Json@12.0.3',
      'pkg:nuget/Moment.js@2.29.1',
      'pkg:nuget/System.Text.Json@6.0.0',
      'pkg:nuget/Microsoft.Extensions.Logging@6.0.0',
      undefined,
    ]);
    expect(sbom.tools).toEqual([{ name: 'Microsoft.SBOMTool', version: '1.1.1' }]);
  });
});

describe('SPDX tag-value', () => {
  it('reads packages, purl and CPE external references, licences and purposes like the JSON encoding', () => {
    const cveBinTool = parseSbom(sbomFixture('spdx-2.3_pypi_sbom4python-0.10.4_cve-bin-tool-3.3.spdx'));

    expect(cveBinTool.components.find((c) => c.name === 'aiohttp')).toEqual({
      ref: 'SPDXRef-Package-2-aiohttp',
      name: 'aiohttp',
      version: '3.9.4',
      purl: 'pkg:pypi/aiohttp@3.9.4',
      cpes: [],
      licenses: ['Apache-2.0'],
      type: 'library',
    });
    expect(cveBinTool.components.find((c) => c.name === 'attrs')).toEqual({
      ref: 'SPDXRef-Package-6-attrs',
      name: 'attrs',
      version: '23.2.0',
      purl: 'pkg:pypi/attrs@23.2.0',
      cpes: ['cpe:2.3:a:hynek_schlawack:attrs:23.2.0:*:*:*:*:*:*:*'],
      licenses: [],
      type: 'library',
    });
    expect(cveBinTool.tools).toEqual([{ name: 'sbom4python', version: '0.10.4' }]);
  });

  it('reads the k8s bom layout: CONTAINS relationships, PACKAGE-MANAGER spelling, purl-less layer packages', () => {
    const nginx = parseSbom(sbomFixture('spdx-2.2_deb_k8s-bom_nginx-image.spdx'));

    expect(nginx.components.filter((c) => c.purl?.startsWith('pkg:deb/')).length).toBeGreaterThan(900);
    expect(nginx.components.some((c) => c.purl === undefined)).toBe(true);
  });

  const tagValue = (lines: string[]) =>
    ['SPDXVersion: SPDX-2.3', 'SPDXID: SPDXRef-DOCUMENT', 'DocumentName: t', ...lines].join('\r\n');

  it("joins multi-line <text> values, skips comments, and gives a file section's SPDXID to the file", () => {
    const sbom = parseSbom(
      tagValue([
        '# a comment',
        '',
        'PackageName: left-pad',
        'SPDXID: SPDXRef-left-pad',
        'PackageVersion: 1.3.0',
        'PackageComment: <text>spans',
        'Tag: looking: lines',
        '</text>',
        'ExternalRef: PACKAGE-MANAGER purl pkg:npm/left-pad@1.3.0',
        'FileName: ./index.js',
        'SPDXID: SPDXRef-file',
      ]),
    );

    expect(sbom.components).toEqual([
      {
        ref: 'SPDXRef-left-pad',
        name: 'left-pad',
        version: '1.3.0',
        purl: 'pkg:npm/left-pad@1.3.0',
        cpes: [],
        licenses: [],
      },
    ]);
    expect(sbom.encoding).toBe('tag-value');
  });

  it.each([
    ['a line that is not "Tag: value"', tagValue(['PackageName: x', 'just words']), /line 5 is not "Tag: value"/],
    [
      'an unclosed <text>',
      tagValue(['PackageName: x', 'PackageComment: <text>never closed']),
      /line 5: <text> is never closed/,
    ],
    [
      'a package with two versions',
      tagValue(['PackageName: x', 'PackageVersion: 1', 'PackageVersion: 2']),
      /PackageVersion given twice/,
    ],
    ['a malformed Relationship', tagValue(['Relationship: SPDXRef-DOCUMENT DESCRIBES']), /Relationship needs/],
    ['a malformed ExternalRef', tagValue(['PackageName: x', 'ExternalRef: purl']), /ExternalRef needs/],
    ['SPDX 2.1 tag-value', tagValue([]).replace('SPDX-2.3', 'SPDX-2.1'), /SPDX version SPDX-2\.1 is not supported/],
  ])('rejects %s with the line', (_label, content, reason) => {
    expect(() => parseSbom(content)).toThrow(SbomRejectedError);
    expect(() => parseSbom(content)).toThrow(reason);
  });
});

describe('legacy purls', () => {
  it('maps old syft pkg:dotnet purls to NuGet, CycloneDX and SPDX alike', () => {
    const cdx = parseSbom(
      JSON.stringify({
        bomFormat: 'CycloneDX',
        specVersion: '1.4',
        components: [
          { type: 'library', name: 'Newtonsoft.Json', version: '12.0.3', purl: 'pkg:dotnet/Newtonsoft.Json@12.0.3' },
        ],
      }),
    );
    const spdx = parseSbom(
      tagValue([
        'PackageName: Newtonsoft.Json',
        'SPDXID: SPDXRef-nj',
        'ExternalRef: PACKAGE-MANAGER purl pkg:dotnet/Newtonsoft.Json@12.0.3',
      ]),
    );

    expect(cdx.components[0]?.purl).toBe('pkg:nuget/Newtonsoft.Json@12.0.3');
    expect(spdx.components[0]?.purl).toBe('pkg:nuget/Newtonsoft.Json@12.0.3');
  });

  const tagValue = (lines: string[]) => ['SPDXVersion: SPDX-2.3', 'SPDXID: SPDXRef-DOCUMENT', ...lines].join('\n');
});
