/**
 * The public disclosure page's statement rows (web/src/statements.ts over the server's reader,
 * shared/service/vex/statements.ts) on real-world VEX documents of each format: one row per statement
 * of the document, its status in the disposition vocabulary whatever the format.
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statementsOf } from '../../web/src/statements';

const EXAMPLES = join(import.meta.dirname, '../fixtures/vex-examples');
const examples = (folder: string) =>
  readdirSync(join(EXAMPLES, folder)).map((file) => ({
    file,
    document: JSON.parse(readFileSync(join(EXAMPLES, folder, file), 'utf8')) as unknown,
  }));

/** The formats' own words for a status, as people read them on the page. */
const CYCLONEDX_STATE: Record<string, string> = {
  not_affected: 'not_affected',
  false_positive: 'not_affected',
  exploitable: 'affected',
  resolved: 'fixed',
  resolved_with_pedigree: 'fixed',
  in_triage: 'under_investigation',
};
const CSAF_GROUP: Record<string, string> = {
  known_not_affected: 'not_affected',
  known_affected: 'affected',
  first_affected: 'affected',
  last_affected: 'affected',
  fixed: 'fixed',
  first_fixed: 'fixed',
  under_investigation: 'under_investigation',
};

describe('disclosure statements for the console', () => {
  it('reads one row per OpenVEX statement with its vulnerability, products and status', () => {
    for (const { file, document } of examples('openvex')) {
      const { statements } = document as { statements: Array<{ status: string; products?: unknown[] }> };
      const rows = statementsOf('openvex', document);
      expect({ file, statuses: rows.map((row) => row.status) }).toEqual({
        file,
        statuses: statements.filter((statement) => statement.products?.length).map((statement) => statement.status),
      });
      expect(rows.every((row) => row.vulnerability !== '' && row.products.length > 0)).toBe(true);
    }
  });

  it('reads one row per CycloneDX vulnerability, its analysis state as a disposition status', () => {
    for (const { file, document } of examples('cyclonedx')) {
      const { vulnerabilities } = document as {
        vulnerabilities: Array<{ id: string; analysis?: { state?: string }; affects?: unknown[] }>;
      };
      const rows = statementsOf('cyclonedx_vex', document);
      expect({ file, rows: rows.map((row) => [row.vulnerability, row.status]) }).toEqual({
        file,
        rows: vulnerabilities
          .filter((vulnerability) => vulnerability.affects?.length)
          .map((vulnerability) => [vulnerability.id, CYCLONEDX_STATE[vulnerability.analysis?.state ?? ''] ?? '']),
      });
      expect(rows.every((row) => row.products.length > 0)).toBe(true);
    }
  });

  it('names the justification of a not-affected statement for people', () => {
    const rows = statementsOf(
      'cyclonedx_vex',
      examples('cyclonedx').find(({ file }) => file === 'bom-examples_CISA-Case-2_vex.json')?.document,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.detail).toMatch(/^(vulnerable code|component|inline mitigations)[a-z ]+/);
  });

  it('reads CSAF product status groups, one row per vulnerability and status, skipping advice (recommended)', () => {
    for (const { file, document } of examples('csaf')) {
      const { vulnerabilities } = document as {
        vulnerabilities?: Array<{ product_status?: Record<string, string[]> }>;
      };
      const expected = (vulnerabilities ?? []).flatMap((vulnerability) =>
        Object.keys(vulnerability.product_status ?? {}).flatMap((group) => CSAF_GROUP[group] ?? []),
      );
      const rows = statementsOf('csaf', document);
      expect({ file, statuses: rows.map((row) => row.status) }).toEqual({ file, statuses: expected });
      expect(rows.every((row) => row.vulnerability !== '' && row.products.length > 0)).toBe(true);
    }
  });

  it('gives no rows for a document that is not an object', () => {
    expect(statementsOf('openvex', 'not a document')).toEqual([]);
    expect(statementsOf('csaf', null)).toEqual([]);
  });
});
