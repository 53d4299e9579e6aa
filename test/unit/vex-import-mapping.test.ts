import { describe, expect, it } from '@jest/globals';
import {
  CSAF_FLAG_LABEL,
  CSAF_PRODUCT_STATUS,
  CSAF_REMEDIATION,
  CYCLONEDX_JUSTIFICATION,
  CYCLONEDX_JUSTIFICATION_LOSSY,
  CYCLONEDX_RESPONSE,
  CYCLONEDX_STATE,
  OPENVEX_STATUS,
} from '../../shared/service/vex/formats/mapping';
import { fromCsaf, fromCycloneDx, fromOpenVex } from '../../shared/service/vex/formats/inverse-mapping';
import { detectFormat, readStatements } from '../../shared/service/vex/statements';
import { dispositionStatus, justificationValue, responseValue } from '../../shared/service/schemas/dispositions';

describe("VEX import vocabulary (inverse of the generators' mapping)", () => {
  it.each(dispositionStatus.options)('reads status %s back from every format', (status) => {
    expect(fromCycloneDx.state(CYCLONEDX_STATE[status])).toBe(status);
    expect(fromOpenVex.status(OPENVEX_STATUS[status])).toBe(status);
    expect(fromCsaf.status(CSAF_PRODUCT_STATUS[status])).toBe(status);
  });

  it.each(justificationValue.options)(
    'reads justification %s back where the forward cell is not lossy',
    (justification) => {
      const cdx = fromCycloneDx.justification(CYCLONEDX_JUSTIFICATION[justification]);
      if (!CYCLONEDX_JUSTIFICATION_LOSSY[justification]) expect(cdx).toBe(justification);
      else expect(justificationValue.options).toContain(cdx);
      expect(fromCsaf.flag(CSAF_FLAG_LABEL[justification])).toBe(justification);
      expect(fromOpenVex.justification(justification)).toBe(justification);
    },
  );

  it.each(responseValue.options)(
    'reads response %s back (CSAF: a response of the same remediation category)',
    (response) => {
      expect(fromCycloneDx.response(CYCLONEDX_RESPONSE[response])).toBe(response);
      const csaf = fromCsaf.remediation(CSAF_REMEDIATION[response]);
      expect(csaf === null ? null : CSAF_REMEDIATION[csaf]).toBe(CSAF_REMEDIATION[response]);
    },
  );

  it('maps the labels no generator writes onto the nearest disposition value', () => {
    expect(fromCycloneDx.state('false_positive')).toBe('not_affected');
    expect(fromCycloneDx.state('resolved_with_pedigree')).toBe('fixed');
    expect(fromCycloneDx.justification('protected_at_perimeter')).toBe('inline_mitigations_already_exist');
    expect(fromCycloneDx.justification('requires_dependency')).toBe('component_not_present');
    expect(fromCsaf.remediation('mitigation')).toBe('workaround_available');
    expect(fromCycloneDx.state('bogus')).toBeNull();
  });
});

describe('VEX import statements', () => {
  it('resolves a CycloneDX BOM-Link to the purl named by its fragment', () => {
    const document = {
      bomFormat: 'CycloneDX',
      specVersion: '1.4',
      version: 1,
      vulnerabilities: [
        {
          id: 'CVE-2020-25649',
          references: [{ id: 'GHSA-288c-cq4h-88gq', source: { name: 'GitHub' } }],
          analysis: {
            state: 'not_affected',
            justification: 'code_not_reachable',
            response: ['will_not_fix', 'update'],
          },
          affects: [
            {
              ref: 'urn:cdx:3e671687-395b-41f5-a30f-a58921a69b79/1#pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0?type=jar',
            },
          ],
        },
      ],
    };

    expect(detectFormat(document)).toBe('cyclonedx_vex');
    expect(readStatements('cyclonedx_vex', document).statements).toEqual([
      expect.objectContaining({
        pointer: '/vulnerabilities/0/affects/0',
        statement: '/vulnerabilities/0',
        vulnerabilityIds: ['CVE-2020-25649', 'GHSA-288c-cq4h-88gq'],
        purls: ['pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.10.0?type=jar'],
        decision: expect.objectContaining({
          status: 'not_affected',
          justification: 'vulnerable_code_not_in_execute_path',
          response: 'will_not_fix',
        }),
        problem: null,
      }),
    ]);
  });

  it("reads a CSAF relationship product as its component's purl and flags an affected product without a remediation", () => {
    const document = {
      document: { csaf_version: '2.0', publisher: { name: 'ACME PSIRT' } },
      product_tree: {
        full_product_names: [
          { product_id: 'lib', name: 'lib 1.0', product_identification_helper: { purl: 'pkg:npm/lib@1.0.0' } },
          { product_id: 'app', name: 'app 2' },
        ],
        relationships: [
          {
            category: 'default_component_of',
            product_reference: 'lib',
            relates_to_product_reference: 'app',
            full_product_name: { product_id: 'lib-in-app', name: 'lib in app' },
          },
        ],
      },
      vulnerabilities: [
        { cve: 'CVE-2099-0001', product_status: { known_affected: ['lib-in-app'], recommended: ['app'] } },
      ],
    };

    const { author, statements } = readStatements('csaf', document);

    expect(author).toBe('ACME PSIRT');
    expect(statements).toEqual([
      expect.objectContaining({
        pointer: '/vulnerabilities/0/product_status/known_affected/0',
        statement: '/vulnerabilities/0/product_status/known_affected',
        product: 'lib-in-app',
        purls: ['pkg:npm/lib@1.0.0'],
        problem: 'affected needs a response (remediations[].category)',
      }),
    ]);
  });
});
