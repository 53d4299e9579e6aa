/**
 * Reads a VEX document into flat statements: one per (vulnerability, product reference) the document
 * makes, with the packages (purls) the reference resolves to under the format's own rules and the
 * decision translated into disposition fields. Pure, no I/O and no zod: the import (docs/vex-import.md)
 * and the console's disclosure page read VEX statements with it, in one way.
 */
import type { DispositionResponse, DispositionStatus, Justification } from '../dispositions/vocabulary';
import type { VexFormat } from '../schemas/vex';
import { fromCsaf, fromCycloneDx, fromOpenVex } from './formats/inverse-mapping';

export interface ImportedDecision {
  status: DispositionStatus;
  justification: Justification | null;
  response: DispositionResponse | null;
  detail: string | null;
  actionStatement: string | null;
  impactStatement: string | null;
}

export interface ImportStatement {
  /** JSON pointer of the statement's product reference in the document. */
  pointer: string;
  /** JSON pointer of the statement it belongs to (OpenVEX statement, CycloneDX vulnerability, CSAF product status group). */
  statement: string;
  /** The vulnerability id as the document writes it. */
  vulnerability: string;
  /** That id and the aliases the document gives for it. */
  vulnerabilityIds: string[];
  /** The product reference as written (bom-ref, BOM-Link, `@id`, CSAF product id). */
  product: string;
  /** Package URLs the reference resolves to; empty when it names no package (a whole product). */
  purls: string[];
  /** null when the statement's status has no disposition (`problem` says why). */
  decision: ImportedDecision | null;
  /** Why the decision cannot be a disposition (spec "Disposition" rules), else null. */
  problem: string | null;
  /** When the statement was made, where the format says so; a later statement on the same finding wins. */
  timestamp: string | null;
}

export interface ParsedVexDocument {
  format: VexFormat;
  author: string | null;
  statements: ImportStatement[];
}

type Json = Record<string, unknown>;

/** Disposition texts are at most 5000 characters (spec limits); longer document texts are cut there. */
const MAX_TEXT = 5000;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const objects = (value: unknown): Json[] => array(value).filter(isObject);
const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
const text = (value: unknown): string | null => {
  const s = str(value);
  return s === null || s.length <= MAX_TEXT ? s : `${s.slice(0, MAX_TEXT - 1)}…`;
};
const purlOf = (value: unknown): string | null => {
  const s = str(value);
  return s !== null && s.startsWith('pkg:') ? s : null;
};
/** RFC 6901: `~` and `/` in a segment are escaped. */
const pointer = (...segments: Array<string | number>): string =>
  segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** Spec "Disposition": not_affected needs a justification, affected a response. */
function problemOf(decision: ImportedDecision, justificationField: string, responseField: string): string | null {
  if (decision.status === 'not_affected' && decision.justification === null)
    return `not_affected needs a justification (${justificationField})`;
  if (decision.status === 'affected' && decision.response === null)
    return `affected needs a response (${responseField})`;
  return null;
}

/** Which format a parsed JSON document is, from the markers each format requires; null when none. */
export function detectFormat(document: unknown): VexFormat | null {
  if (!isObject(document)) return null;
  if (document.bomFormat === 'CycloneDX') return 'cyclonedx_vex';
  const context = document['@context'];
  if (typeof context === 'string' && context.startsWith('https://openvex.dev/ns')) return 'openvex';
  if (isObject(document.document) && document.document.csaf_version !== undefined) return 'csaf';
  return null;
}

// ---- CycloneDX ----

interface CdxComponentInfo {
  purl: string | null;
}

function cycloneDxComponents(document: Json): Map<string, CdxComponentInfo> {
  const byRef = new Map<string, CdxComponentInfo>();
  const metadata = isObject(document.metadata) ? document.metadata : {};
  const pending: Json[] = [
    ...(isObject(metadata.component) ? [metadata.component] : []),
    ...objects(document.components),
  ];
  for (let component = pending.pop(); component !== undefined; component = pending.pop()) {
    const ref = str(component['bom-ref']);
    if (ref !== null && !byRef.has(ref)) byRef.set(ref, { purl: purlOf(component.purl) });
    pending.push(...objects(component.components));
  }
  return byRef;
}

/** The package a CycloneDX `affects[].ref` names: a bom-ref of this document, a BOM-Link into another BOM, or a purl. */
function cycloneDxPurls(ref: string, components: Map<string, CdxComponentInfo>): string[] {
  // BOM-Link: urn:cdx:<serial>/<version>#<bom-ref>; the bom-ref is in the linked BOM, often a purl itself.
  const target = ref.startsWith('urn:cdx:') && ref.includes('#') ? safeDecode(ref.slice(ref.indexOf('#') + 1)) : ref;
  const component = components.get(target);
  if (component) return component.purl === null ? [] : [component.purl];
  const purl = purlOf(target);
  return purl === null ? [] : [purl];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function cycloneDxAuthor(document: Json): string | null {
  const metadata = isObject(document.metadata) ? document.metadata : {};
  const orgName = (value: unknown) => (isObject(value) ? str(value.name) : null);
  const author = objects(metadata.authors)
    .map((a) => str(a.name))
    .find((name) => name !== null);
  // `manufacturer` since 1.6, `manufacture` before.
  return author ?? orgName(metadata.supplier) ?? orgName(metadata.manufacturer) ?? orgName(metadata.manufacture);
}

function parseCycloneDx(document: Json): ParsedVexDocument {
  const components = cycloneDxComponents(document);
  const statements: ImportStatement[] = [];
  objects(document.vulnerabilities).forEach((vulnerability, v) => {
    const id = str(vulnerability.id) ?? '';
    const ids = [id, ...objects(vulnerability.references).map((reference) => str(reference.id))].filter(
      (x): x is string => x !== null && x !== '',
    );
    const analysis = isObject(vulnerability.analysis) ? vulnerability.analysis : {};
    // Our own documents keep the original label where CycloneDX loses it (../formats/cyclonedx.ts).
    const ownJustification = objects(vulnerability.properties).find((p) => p.name === 'vexdesk:justification')?.value;
    const status = fromCycloneDx.state(analysis.state);
    const decision: ImportedDecision | null =
      status === null
        ? null
        : {
            status,
            // As in the generators, a justification belongs to not_affected only.
            justification:
              status === 'not_affected'
                ? (fromOpenVex.justification(ownJustification) ?? fromCycloneDx.justification(analysis.justification))
                : null,
            response:
              array(analysis.response)
                .map(fromCycloneDx.response)
                .find((r) => r !== null) ?? null,
            detail: text(analysis.detail),
            actionStatement: status === 'affected' ? text(vulnerability.recommendation) : null,
            impactStatement: null,
          };
    const problem =
      decision === null
        ? analysis.state === undefined
          ? 'no analysis.state'
          : `analysis.state ${JSON.stringify(analysis.state)} has no disposition status`
        : problemOf(decision, 'analysis.justification', 'analysis.response');
    objects(vulnerability.affects).forEach((affects, a) => {
      const ref = str(affects.ref) ?? '';
      statements.push({
        pointer: pointer('vulnerabilities', v, 'affects', a),
        statement: pointer('vulnerabilities', v),
        vulnerability: id,
        vulnerabilityIds: ids,
        product: ref,
        purls: cycloneDxPurls(ref, components),
        decision,
        problem,
        timestamp: str(analysis.lastUpdated) ?? null,
      });
    });
  });
  return { format: 'cyclonedx_vex', author: cycloneDxAuthor(document), statements };
}

// ---- OpenVEX ----

function openVexPurls(component: Json): string[] {
  const identifiers = isObject(component.identifiers) ? component.identifiers : {};
  return [...new Set([purlOf(identifiers.purl), purlOf(component['@id'])].filter((p): p is string => p !== null))];
}

function parseOpenVex(document: Json): ParsedVexDocument {
  const statements: ImportStatement[] = [];
  objects(document.statements).forEach((statement, s) => {
    const vulnerability = isObject(statement.vulnerability) ? statement.vulnerability : {};
    const name = str(vulnerability.name) ?? '';
    const ids = [name, str(vulnerability['@id']), ...array(vulnerability.aliases).map(str)].filter(
      (x): x is string => x !== null && x !== '',
    );
    const status = fromOpenVex.status(statement.status);
    // OpenVEX has no field for a response; `affected` statements therefore cannot become dispositions (docs/vex-import.md).
    const decision: ImportedDecision | null =
      status === null
        ? null
        : {
            status,
            justification: fromOpenVex.justification(statement.justification),
            response: null,
            detail: text(statement.status_notes),
            actionStatement: text(statement.action_statement),
            impactStatement: text(statement.impact_statement),
          };
    const problem =
      decision === null
        ? `status ${JSON.stringify(statement.status)} has no disposition status`
        : problemOf(decision, 'justification', 'OpenVEX has no response field');
    const timestamp = str(statement.timestamp) ?? str(document.last_updated) ?? str(document.timestamp);
    objects(statement.products).forEach((product, p) => {
      // A product with subcomponents: the statement is about those packages inside it.
      const subcomponents = objects(product.subcomponents);
      const purls =
        subcomponents.length > 0 ? [...new Set(subcomponents.flatMap(openVexPurls))] : openVexPurls(product);
      statements.push({
        pointer: pointer('statements', s, 'products', p),
        statement: pointer('statements', s),
        vulnerability: name,
        vulnerabilityIds: ids,
        product: str(product['@id']) ?? '',
        purls,
        decision,
        problem,
        timestamp,
      });
    });
  });
  return { format: 'openvex', author: str(document.author), statements };
}

// ---- CSAF ----

/** CSAF product status groups that state a disposition; `recommended` is advice, not a status, and is not read. */
const CSAF_GROUP_STATUS: Readonly<Record<string, DispositionStatus>> = {
  first_affected: 'affected',
  last_affected: 'affected',
  first_fixed: 'fixed',
};

function csafProducts(tree: Json): Map<string, string | null> {
  const purls = new Map<string, string | null>();
  const fullProductName = (product: unknown) => {
    if (!isObject(product)) return;
    const id = str(product.product_id);
    const helper = isObject(product.product_identification_helper) ? product.product_identification_helper : {};
    if (id !== null) purls.set(id, purlOf(helper.purl));
  };
  const branches: Json[] = objects(tree.branches);
  for (let branch = branches.pop(); branch !== undefined; branch = branches.pop()) {
    fullProductName(branch.product);
    branches.push(...objects(branch.branches));
  }
  for (const product of objects(tree.full_product_names)) fullProductName(product);
  // "X as part of Y": the package is X (product_reference); the statement names the combination.
  for (const relationship of objects(tree.relationships)) {
    const id = isObject(relationship.full_product_name) ? str(relationship.full_product_name.product_id) : null;
    const component = str(relationship.product_reference);
    if (id !== null) purls.set(id, component === null ? null : (purls.get(component) ?? null));
  }
  return purls;
}

function parseCsaf(document: Json): ParsedVexDocument {
  const meta = isObject(document.document) ? document.document : {};
  const tree = isObject(document.product_tree) ? document.product_tree : {};
  const purls = csafProducts(tree);
  const groups = new Map(
    objects(tree.product_groups).map((group) => [
      str(group.group_id) ?? '',
      array(group.product_ids)
        .map(str)
        .filter((x): x is string => x !== null),
    ]),
  );
  const appliesTo = (entry: Json, productId: string) =>
    array(entry.product_ids).includes(productId) ||
    array(entry.group_ids).some((group) => typeof group === 'string' && (groups.get(group) ?? []).includes(productId));
  const tracking = isObject(meta.tracking) ? meta.tracking : {};
  const timestamp = str(tracking.current_release_date);
  const statements: ImportStatement[] = [];
  objects(document.vulnerabilities).forEach((vulnerability, v) => {
    const ids = [str(vulnerability.cve), ...objects(vulnerability.ids).map((id) => str(id.text))].filter(
      (x): x is string => x !== null,
    );
    const productStatus = isObject(vulnerability.product_status) ? vulnerability.product_status : {};
    for (const [group, productIds] of Object.entries(productStatus)) {
      const status = fromCsaf.status(group) ?? CSAF_GROUP_STATUS[group] ?? null;
      if (status === null) continue;
      array(productIds).forEach((value, k) => {
        const productId = str(value) ?? '';
        const remediation = objects(vulnerability.remediations).find(
          (r) => appliesTo(r, productId) && fromCsaf.remediation(r.category) !== null,
        );
        const decision: ImportedDecision = {
          status,
          justification:
            status === 'not_affected'
              ? fromCsaf.flag(objects(vulnerability.flags).find((f) => appliesTo(f, productId))?.label)
              : null,
          response: status === 'affected' && remediation ? fromCsaf.remediation(remediation.category) : null,
          detail: null,
          actionStatement: status === 'affected' && remediation ? text(remediation.details) : null,
          impactStatement: text(
            objects(vulnerability.threats).find((t) => t.category === 'impact' && appliesTo(t, productId))?.details,
          ),
        };
        const purl = purls.get(productId) ?? null;
        statements.push({
          pointer: pointer('vulnerabilities', v, 'product_status', group, k),
          statement: pointer('vulnerabilities', v, 'product_status', group),
          vulnerability: ids[0] ?? '',
          vulnerabilityIds: ids,
          product: productId,
          purls: purl === null ? [] : [purl],
          decision,
          problem: problemOf(decision, 'flags[].label', 'remediations[].category'),
          timestamp,
        });
      });
    }
  });
  const publisher = isObject(meta.publisher) ? meta.publisher : {};
  return { format: 'csaf', author: str(publisher.name), statements };
}

/** The statements of a document of `format` (the import validates it against the format's schema first). */
export function readStatements(format: VexFormat, document: unknown): ParsedVexDocument {
  const json = isObject(document) ? document : {};
  switch (format) {
    case 'cyclonedx_vex':
      return parseCycloneDx(json);
    case 'openvex':
      return parseOpenVex(json);
    case 'csaf':
      return parseCsaf(json);
  }
}
