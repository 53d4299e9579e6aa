/**
 * The statements of a published VEX document as rows for people, whatever its format. The server's reader
 * (shared/service/vex/statements.ts, which the VEX import uses) parses the document; this groups its flat
 * (vulnerability, product) statements back into one row per statement of the document: an OpenVEX
 * statement, a CycloneDX vulnerability, a CSAF product status group. Status and detail are in the
 * disposition vocabulary whatever the format. No DOM: test/unit/console-statements.test.ts reads
 * real-world examples with it.
 */
import type { components } from '../../shared/api/schema';
import { readStatements, type ImportStatement } from '../../shared/service/vex/statements';
import { label } from './labels';

type VexFormat = components['schemas']['VexDocument']['format'];

export interface Statement {
  vulnerability: string;
  /** The packages (purls) the statement names, or its product references where they name none. */
  products: string[];
  /** The disposition status; empty when the document's status has none. */
  status: string;
  detail: string;
}

function detailOf(statement: ImportStatement): string {
  const decision = statement.decision;
  if (!decision) return statement.problem ?? '';
  return [
    decision.justification ? label(decision.justification) : '',
    decision.response ? label(decision.response) : '',
    decision.impactStatement ?? '',
    decision.actionStatement ?? '',
    decision.detail ?? '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** One row per statement of the document, in document order. */
export function statementsOf(format: VexFormat, content: unknown): Statement[] {
  const rows = new Map<string, { row: Statement; products: Set<string>; details: Set<string> }>();
  for (const statement of readStatements(format, content).statements) {
    let entry = rows.get(statement.statement);
    if (!entry) {
      entry = {
        row: {
          vulnerability: statement.vulnerability,
          products: [],
          status: statement.decision?.status ?? '',
          detail: '',
        },
        products: new Set(),
        details: new Set(),
      };
      rows.set(statement.statement, entry);
    }
    for (const product of statement.purls.length > 0 ? statement.purls : [statement.product])
      entry.products.add(product);
    // CSAF states flags and remediations per product: a group's products may differ in detail.
    const detail = detailOf(statement);
    if (detail) entry.details.add(detail);
  }
  return [...rows.values()].map(({ row, products, details }) => ({
    ...row,
    products: [...products],
    detail: [...details].join('; '),
  }));
}
