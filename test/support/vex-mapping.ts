/**
 * The mapping table of docs/vex-mapping.md, cell by cell: one single-finding release per
 * cell, rendered in all three formats, each document also schema-checked (and the CSAF
 * one run through the mandatory tests) so no cell can produce an invalid document.
 * The test/unit/vex-mapping*.test.ts files check the cells, one topic each.
 */
import { expect } from '@jest/globals';
import {
  generateCsaf,
  generateCycloneDxVex,
  generateOpenVex,
  type CsafVexDocument,
  type CycloneDxVexDocument,
  type OpenVexDocument,
} from '../../shared/service/vex/formats';
import type { VexDisposition, VexFinding, VexGenerationInput } from '../../shared/service/vex/model';
import { baseVexInput, vexFinding } from '../bench/vex-generation';
import { runCsafMandatoryTests, vexSchemaValidator } from './schema-validation';

export const COMPONENT = {
  ref: 'pkg:npm/minimist@1.2.5',
  name: 'minimist',
  version: '1.2.5',
  purl: 'pkg:npm/minimist@1.2.5',
  cpes: [],
};

export function single(disposition: VexDisposition | null, extra: Partial<VexFinding> = {}): VexGenerationInput {
  return baseVexInput({
    components: [COMPONENT],
    findings: [
      vexFinding({
        id: 'aaaaaaaa-0000-4000-8000-000000000001',
        componentRef: COMPONENT.ref,
        cveId: 'CVE-2021-44906',
        advisoryId: 'GHSA-xvch-5gv4-984h',
        aliases: ['GHSA-xvch-5gv4-984h'],
        summary: 'Prototype Pollution in minimist',
        cvssV3: { vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: 9.8, severity: 'CRITICAL' },
        fixedVersions: ['1.2.6'],
        disposition,
        ...extra,
      }),
    ],
  });
}

export interface Rendered {
  cdx: CycloneDxVexDocument;
  openvex: OpenVexDocument;
  csaf: CsafVexDocument;
}

export async function render(input: VexGenerationInput): Promise<Rendered> {
  const rendered = { cdx: generateCycloneDxVex(input), openvex: generateOpenVex(input), csaf: generateCsaf(input) };
  const v = vexSchemaValidator();
  expect(v.cyclonedx(rendered.cdx).errors).toEqual([]);
  expect(v.openvex(rendered.openvex).errors).toEqual([]);
  expect(v.csaf(rendered.csaf).errors).toEqual([]);
  expect((await runCsafMandatoryTests(rendered.csaf)).failures).toEqual([]);
  return rendered;
}

export function cdxVuln(r: Rendered) {
  expect(r.cdx.vulnerabilities).toHaveLength(1);
  return r.cdx.vulnerabilities[0]!;
}
export function statement(r: Rendered) {
  expect(r.openvex.statements).toHaveLength(1);
  return r.openvex.statements[0]!;
}
export function csafVuln(r: Rendered) {
  expect(r.csaf.vulnerabilities).toHaveLength(1);
  return r.csaf.vulnerabilities[0]!;
}
export function property(r: Rendered, name: string): string[] {
  return (cdxVuln(r).properties ?? []).filter((p) => p.name === name).map((p) => p.value);
}
