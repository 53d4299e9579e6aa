/**
 * The statements of a published VEX document as rows for people, whatever its format: OpenVEX
 * `statements`, CycloneDX `vulnerabilities[].analysis`, CSAF `vulnerabilities[].product_status`.
 * No DOM: test/unit/console-statements.test.ts reads real-world examples with it.
 */
import { label } from './api/types';

export interface Statement {
  vulnerability: string;
  products: string[];
  status: string;
  detail: string;
}

type Json = Record<string, unknown>;
const object = (value: unknown): Json =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** One row per statement (CSAF: per vulnerability and product status). */
export function statementsOf(format: string, content: unknown): Statement[] {
  const document = object(content);
  if (format === 'openvex') {
    return list(document.statements).map((entry) => {
      const statement = object(entry);
      const products = list(statement.products).flatMap((product) => {
        const subcomponents = list(object(product).subcomponents).map((sub) => text(object(sub)['@id']));
        return subcomponents.length ? subcomponents : [text(object(product)['@id'])];
      });
      return {
        vulnerability: text(object(statement.vulnerability).name),
        products,
        status: text(statement.status),
        detail: [
          label(text(statement.justification)),
          text(statement.impact_statement),
          text(statement.action_statement),
          text(statement.status_notes),
        ]
          .filter(Boolean)
          .join(' · '),
      };
    });
  }
  if (format === 'cyclonedx_vex') {
    return list(document.vulnerabilities).map((entry) => {
      const vulnerability = object(entry);
      const analysis = object(vulnerability.analysis);
      return {
        vulnerability: text(vulnerability.id),
        products: list(vulnerability.affects).map((affect) => text(object(affect).ref)),
        status: text(analysis.state),
        detail: [
          label(text(analysis.justification)),
          list(analysis.response)
            .map((value) => label(text(value)))
            .join(', '),
          text(analysis.detail),
        ]
          .filter(Boolean)
          .join(' · '),
      };
    });
  }
  if (format === 'csaf') {
    return list(document.vulnerabilities).flatMap((entry) => {
      const vulnerability = object(entry);
      const flags = list(vulnerability.flags)
        .map((flag) => text(object(flag).label))
        .filter(Boolean)
        .join(', ');
      return Object.entries(object(vulnerability.product_status)).map(([status, products]) => ({
        vulnerability: text(vulnerability.cve) || text(object(list(vulnerability.ids)[0]).text),
        products: list(products).map(text),
        status,
        detail: flags,
      }));
    });
  }
  return [];
}
