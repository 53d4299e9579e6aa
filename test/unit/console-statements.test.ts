/** The public disclosure page's statement rows (web/src/statements.ts) over real-world VEX documents of each format. */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statementsOf } from '../../web/src/statements';

const EXAMPLES = join(import.meta.dirname, '../fixtures/vex-examples');
const read = (format: string, file: string): unknown => JSON.parse(readFileSync(join(EXAMPLES, format, file), 'utf8'));

describe('disclosure statements for the console', () => {
  it('reads every OpenVEX statement with its vulnerability, products and status', () => {
    const document = read('openvex', 'vexctl_demo.vex.json') as { statements: Array<{ status: string }> };
    const rows = statementsOf('openvex', document);
    expect(rows.map((row) => row.status)).toEqual(document.statements.map((statement) => statement.status));
    expect(rows.every((row) => row.vulnerability !== '' && row.products.length > 0)).toBe(true);
  });

  it('reads CycloneDX analysis states and affected refs', () => {
    const document = read('cyclonedx', 'bom-examples_CISA-Case-2_vex.json') as {
      vulnerabilities: Array<{ id: string; analysis?: { state?: string } }>;
    };
    const rows = statementsOf('cyclonedx_vex', document);
    expect(rows.map((row) => [row.vulnerability, row.status])).toEqual(
      document.vulnerabilities.map((vulnerability) => [vulnerability.id, vulnerability.analysis?.state ?? '']),
    );
    expect(rows.every((row) => row.products.length > 0)).toBe(true);
  });

  it('reads CSAF product status groups, one row per vulnerability and status', () => {
    for (const file of readdirSync(join(EXAMPLES, 'csaf'))) {
      const document = read('csaf', file) as { vulnerabilities?: Array<{ product_status?: Record<string, string[]> }> };
      const expected = (document.vulnerabilities ?? []).flatMap((vulnerability) =>
        Object.entries(vulnerability.product_status ?? {}).map(([status, products]) => [status, products.length]),
      );
      expect({ file, rows: statementsOf('csaf', document).map((row) => [row.status, row.products.length]) }).toEqual({
        file,
        rows: expected,
      });
    }
  });

  it('gives no rows for an unknown format or a document that is not an object', () => {
    expect(statementsOf('spdx', {})).toEqual([]);
    expect(statementsOf('openvex', 'not a document')).toEqual([]);
  });
});
