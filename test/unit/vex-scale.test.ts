/** 2,000 findings must generate and stay valid; timing lives in test/bench/vex-generation.ts. */
import { describe, expect, it } from '@jest/globals';
import { generateVex, serializeVex } from '../../shared/service/vex/formats';
import type { VexFormat } from '../../shared/service/vex/model';
import { buildScaleVexInput } from '../bench/vex-generation';
import { runCsafMandatoryTests, vexSchemaValidator } from '../support/schema-validation';

const FORMATS: readonly VexFormat[] = ['cyclonedx_vex', 'openvex', 'csaf'];

describe('VEX generation at release scale (2,000 findings)', () => {
  const input = buildScaleVexInput(2000);

  it.each(FORMATS)(
    '%s: generates a schema-valid document covering every finding',
    (format) => {
      const doc = generateVex(format, input);
      expect(vexSchemaValidator().validate(format, doc).errors).toEqual([]);
      const text = serializeVex(doc);
      expect(text.endsWith('}\n')).toBe(true);
      if (format === 'cyclonedx_vex' && 'vulnerabilities' in doc && 'bomFormat' in doc) {
        // Every finding id is traceable from the CycloneDX document.
        const published = new Set(
          doc.vulnerabilities.flatMap((v) =>
            (v.properties ?? []).filter((p) => p.name === 'vexdesk:finding').map((p) => p.value),
          ),
        );
        expect(input.findings.filter((f) => !published.has(f.id))).toEqual([]);
      }
    },
    120_000,
  ); // schema `uniqueItems` checks are quadratic: several seconds for the 3.5 MB CycloneDX document

  it('CSAF passes the mandatory tests at scale', async () => {
    const report = await runCsafMandatoryTests(generateVex('csaf', input));
    expect(report.failures).toEqual([]);
  }, 120_000);
});
