/**
 * OpenVEX v0.2.0. The release is the statement's product (its purl), the matched SBOM
 * components are its subcomponents. Statements of one vulnerability that assert the
 * same thing (status, justification, texts) are merged into one statement listing all
 * their subcomponents, as publishers such as go-vex/Trivy do.
 */
import type { PreparedStatement, PreparedVex, PreparedVulnerability } from './prepare';
import { groupStatements, latestUpdate, prepareVex } from './prepare';
import { OPENVEX_STATUS, type OpenVexStatus } from './mapping';
import { VexGenerationError } from './errors';
import { canonicalize } from './serialize';
import {
  GENERATOR_NAME,
  GENERATOR_VERSION,
  genericPurl,
  namespaceBase,
  ociDigest,
  qualifierFreePurl,
  validPurl,
  vulnSource,
} from './util';
import type { Justification, VexComponent, VexGenerationInput } from '../model';

export const OPENVEX_CONTEXT = 'https://openvex.dev/ns/v0.2.0';

export interface OpenVexIdentifiers {
  purl?: string;
  cpe22?: string;
  cpe23?: string;
}
export interface OpenVexComponent {
  '@id': string;
  identifiers?: OpenVexIdentifiers;
  hashes?: { 'sha-256': string };
}
export interface OpenVexProduct extends OpenVexComponent {
  subcomponents?: OpenVexComponent[];
}
export interface OpenVexStatement {
  vulnerability: { '@id'?: string; name: string; description?: string; aliases?: string[] };
  timestamp?: string;
  products: OpenVexProduct[];
  status: OpenVexStatus;
  justification?: Justification;
  impact_statement?: string;
  action_statement?: string;
  action_statement_timestamp?: string;
  status_notes?: string;
}
export interface OpenVexDocument {
  '@context': typeof OPENVEX_CONTEXT;
  '@id': string;
  author: string;
  timestamp: string;
  last_updated: string;
  version: number;
  tooling: string;
  statements: OpenVexStatement[];
}

/** Document IRI under the publisher namespace; stable across versions (OpenVEX has `version`). */
export function openVexDocumentId(input: VexGenerationInput): string {
  return `${namespaceBase(input.document.publisherNamespace)}/vex/${encodeURIComponent(input.document.id)}`;
}

/** purl of the release: the stored artifact purl, else `pkg:generic/<product slug>@<release version>`. */
export function releasePurl(input: VexGenerationInput): string {
  return validPurl(input.release.purl) ?? genericPurl(input.product.slug, input.release.version);
}

/**
 * `@id` is the purl as written; `identifiers.purl` is the same purl without qualifiers when it has
 * any. go-vex `Component.Matches` (used by Grype and Trivy) tries both, and its `PurlMatches`
 * needs every qualifier of our purl in the scanner's, which carries its own (Trivy:
 * `arch`, `repository_url=index.docker.io/library/...`; Grype builds `repository_url` from the
 * image reference it was given), so only the qualifier-free form matches all of them.
 */
function purlComponent(purl: string): OpenVexComponent {
  return { '@id': purl, identifiers: { purl: qualifierFreePurl(purl) ?? purl } };
}

/**
 * The release as OpenVEX product. An OCI artifact also gets its digest as `hashes.sha-256`:
 * Grype's product identifiers for an image (openvex/discovery `GenerateReferenceIdentifiers`)
 * include the bare digest, which go-vex matches against a component's hashes.
 */
export function openVexProduct(input: VexGenerationInput): OpenVexComponent {
  const product = purlComponent(releasePurl(input));
  const digest = ociDigest(product['@id']);
  if (digest !== null) product.hashes = { 'sha-256': digest };
  return product;
}

function subcomponent(c: VexComponent): OpenVexComponent {
  const purl = validPurl(c.purl);
  if (purl !== null) return purlComponent(purl);
  const cpe = c.cpes.map((x) => x.trim()).find((x) => x !== '');
  if (cpe !== undefined) {
    // A CPE is itself an IRI (scheme "cpe").
    return { '@id': cpe, identifiers: cpe.startsWith('cpe:2.3:') ? { cpe23: cpe } : { cpe22: cpe } };
  }
  const purlFromName = genericPurl(c.name, c.version);
  return { '@id': purlFromName, identifiers: { purl: purlFromName } };
}

interface StatementTexts {
  impact?: string;
  action?: string;
  notes?: string;
}

function textsOf(s: PreparedStatement): StatementTexts {
  const out: StatementTexts = {};
  const notes: string[] = [];
  if (s.status === 'not_affected') {
    if (s.impactStatement !== null) out.impact = s.impactStatement;
    else if (s.justification === null) {
      // The schema needs a justification or an impact statement; fall back to the detail.
      out.impact = s.detail ?? 'Not affected (no justification was recorded).';
    }
    if (s.detail !== null && out.impact !== s.detail) notes.push(s.detail);
  } else {
    if (s.detail !== null) notes.push(s.detail);
    if (s.impactStatement !== null) notes.push(s.impactStatement);
  }
  if (s.status === 'affected') out.action = s.actionStatement;
  if (!s.triaged) notes.push('Matched by SBOM scan; not yet triaged.');
  if (notes.length > 0) out.notes = notes.join('\n\n');
  return out;
}

function statementsOf(v: PreparedVulnerability, product: OpenVexComponent, generatedAt: string): OpenVexStatement[] {
  const vulnerability: OpenVexStatement['vulnerability'] = { '@id': vulnSource(v.id).url, name: v.id };
  if (v.summary !== null) vulnerability.description = v.summary;
  if (v.aliases.length > 0) vulnerability.aliases = v.aliases;

  const key = (s: PreparedStatement): string => JSON.stringify([s.status, s.justification, textsOf(s)]);
  return groupStatements(v.statements, key).map((group): OpenVexStatement => {
    const s = group[0]!; // groups are never empty
    const texts = textsOf(s);
    const subcomponents: OpenVexComponent[] = [];
    const seen = new Set<string>();
    for (const g of group) {
      const sc = subcomponent(g.component);
      // Two SBOM entries with the same purl are one subcomponent (schema: uniqueItems).
      if (!seen.has(sc['@id'])) subcomponents.push(sc);
      seen.add(sc['@id']);
    }
    const statement: OpenVexStatement = {
      vulnerability,
      products: [{ ...product, subcomponents }],
      status: OPENVEX_STATUS[s.status],
    };
    const updated = latestUpdate(group);
    // Explicit per statement: untriaged findings became known at generation time, not when the document was first issued.
    statement.timestamp = updated ?? generatedAt;
    if (s.justification !== null) statement.justification = s.justification;
    if (texts.impact !== undefined) statement.impact_statement = texts.impact;
    if (texts.action !== undefined) {
      statement.action_statement = texts.action;
      if (updated !== null) statement.action_statement_timestamp = updated;
    }
    if (texts.notes !== undefined) statement.status_notes = texts.notes;
    return statement;
  });
}

export function generateOpenVexFromPrepared(prepared: PreparedVex): OpenVexDocument {
  const { input } = prepared;
  if (prepared.vulnerabilities.length === 0) {
    throw new VexGenerationError(
      'vex_no_statements',
      'OpenVEX requires at least one statement; the release has no vulnerabilities',
    );
  }
  const product = openVexProduct(input);
  return canonicalize<OpenVexDocument>({
    '@context': OPENVEX_CONTEXT,
    '@id': openVexDocumentId(input),
    author: input.document.author ?? input.document.publisherName,
    timestamp: prepared.firstIssuedAt,
    last_updated: input.document.generatedAt,
    version: input.document.version,
    tooling: `${GENERATOR_NAME} ${GENERATOR_VERSION}`,
    statements: prepared.vulnerabilities.flatMap((v) => statementsOf(v, product, input.document.generatedAt)),
  });
}

/** OpenVEX v0.2.0 document (plain object, keys already in canonical order). */
export function generateOpenVex(input: VexGenerationInput): OpenVexDocument {
  return generateOpenVexFromPrepared(prepareVex(input));
}
