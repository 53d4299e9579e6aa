/**
 * CSAF 2.0, profile `csaf_vex`. Product tree: vendor -> product name -> release version
 * (the release product), the matched components as full product names, and one
 * `default_component_of` relationship per component; product status, flags, threats,
 * remediations and scores reference those relationship products ("component X as part
 * of release Y"). One CSAF vulnerability per canonical vulnerability id (test 6.1.23).
 */
import type { PreparedStatement, PreparedVex, PreparedVulnerability } from './prepare';
import { prepareVex } from './prepare';
import type { NormalizedCvss } from './cvss';
import {
  CSAF_FLAG_LABEL,
  CSAF_PRODUCT_STATUS,
  CSAF_REMEDIATION,
  CSAF_REMEDIATION_WITHOUT_RESPONSE,
  type CsafFlagLabel,
  type CsafProductStatusGroup,
  type CsafRemediationCategory,
} from './mapping';
import { VexGenerationError } from './errors';
import { canonicalize } from './serialize';
import {
  GENERATOR_NAME,
  GENERATOR_VERSION,
  componentLabel,
  isCveId,
  sha256Hex,
  shortHash,
  validPurl,
  vulnSource,
  vulnSystemName,
} from './util';
import type { VexComponent, VexGenerationInput } from '../model';

export type CsafNoteCategory = 'description' | 'details' | 'faq' | 'general' | 'legal_disclaimer' | 'other' | 'summary';
export interface CsafNote {
  category: CsafNoteCategory;
  title?: string;
  text: string;
}
export interface CsafProductIdentificationHelper {
  purl?: string;
  cpe?: string;
}
export interface CsafFullProductName {
  name: string;
  product_id: string;
  product_identification_helper?: CsafProductIdentificationHelper;
}
export interface CsafBranch {
  category: 'vendor' | 'product_name' | 'product_version';
  name: string;
  branches?: CsafBranch[];
  product?: CsafFullProductName;
}
export interface CsafRelationship {
  category: 'default_component_of';
  full_product_name: CsafFullProductName;
  product_reference: string;
  relates_to_product_reference: string;
}
export interface CsafCvssV3 {
  version: '3.0' | '3.1';
  vectorString: string;
  baseScore: number;
  baseSeverity: 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
}
export interface CsafCvssV2 {
  version: '2.0';
  vectorString: string;
  baseScore: number;
}
export interface CsafVulnerability {
  cve?: string;
  ids?: Array<{ system_name: string; text: string }>;
  cwe?: { id: string; name: string };
  notes: CsafNote[];
  product_status: Partial<Record<CsafProductStatusGroup, string[]>>;
  flags?: Array<{ label: CsafFlagLabel; product_ids: string[] }>;
  threats?: Array<{ category: 'impact' | 'exploit_status'; details: string; product_ids?: string[] }>;
  remediations?: Array<{ category: CsafRemediationCategory; details: string; product_ids: string[] }>;
  scores?: Array<{ products: string[]; cvss_v2?: CsafCvssV2; cvss_v3?: CsafCvssV3 }>;
  references?: Array<{ category: 'external'; summary: string; url: string }>;
}
export interface CsafRevision {
  date: string;
  number: string;
  summary: string;
}
export interface CsafVexDocument {
  document: {
    category: 'csaf_vex';
    csaf_version: '2.0';
    lang: 'en';
    distribution?: { tlp: { label: 'WHITE'; url: string } };
    publisher: {
      category: 'coordinator' | 'discoverer' | 'other' | 'translator' | 'user' | 'vendor';
      name: string;
      namespace: string;
      contact_details?: string;
      issuing_authority?: string;
    };
    title: string;
    notes: CsafNote[];
    references?: Array<{ category: 'self'; summary: string; url: string }>;
    tracking: {
      id: string;
      status: 'draft' | 'final';
      version: string;
      initial_release_date: string;
      current_release_date: string;
      revision_history: CsafRevision[];
      generator: { date: string; engine: { name: string; version: string } };
    };
  };
  product_tree: {
    branches: CsafBranch[];
    full_product_names?: CsafFullProductName[];
    relationships?: CsafRelationship[];
  };
  vulnerabilities: CsafVulnerability[];
}

// Patterns of CSAF 2.0 `product_identification_helper` (csaf_json_schema.json); a value outside them would make the whole document invalid.
const CSAF_PURL = /^pkg:[A-Za-z.\-+][A-Za-z0-9.\-+]*\/.+/;
const CSAF_CPE = new RegExp(
  '^(cpe:2\\.3:[aho\\*\\-](:(((\\?*|\\*?)([a-zA-Z0-9\\-\\._]|(\\\\[\\\\\\*\\?!"#\\$%&\'\\(\\)\\+,/:;<=>@\\[\\]\\^`\\{\\|\\}~]))+(\\?*|\\*?))|[\\*\\-])){5}(:(([a-zA-Z]{2,3}(-([a-zA-Z]{2}|[0-9]{3}))?)|[\\*\\-]))(:(((\\?*|\\*?)([a-zA-Z0-9\\-\\._]|(\\\\[\\\\\\*\\?!"#\\$%&\'\\(\\)\\+,/:;<=>@\\[\\]\\^`\\{\\|\\}~]))+(\\?*|\\*?))|[\\*\\-])){4})|([c][pP][eE]:/[AHOaho]?(:[A-Za-z0-9\\._\\-~%]*){0,6})$',
);

/** Words/operators that CSAF test 6.1.31 reads as a version range in a `product_version` branch name. */
function looksLikeVersionRange(version: string): boolean {
  const lower = version.toLowerCase();
  if (['<', '>'].some((op) => lower.includes(op))) return true;
  const words = new Set(lower.split(/\s/));
  return ['after', 'all', 'before', 'earlier', 'later', 'prior', 'versions'].some((w) => words.has(w));
}

export function csafReleaseProductId(input: VexGenerationInput): string {
  return `CSAFPID-R-${shortHash(`release\n${input.release.id}`, 12)}`;
}
export function csafComponentProductId(ref: string): string {
  return `CSAFPID-C-${shortHash(`component\n${ref}`, 12)}`;
}
/** Product "component <ref> as part of the release": the subject of every status in the document. */
export function csafComponentInReleaseProductId(input: VexGenerationInput, ref: string): string {
  return `CSAFPID-RC-${shortHash(`release-component\n${input.release.id}\n${ref}`, 12)}`;
}

function helperOf(purl: string | null, cpes: string[]): CsafProductIdentificationHelper | undefined {
  const helper: CsafProductIdentificationHelper = {};
  const p = validPurl(purl);
  if (p !== null && CSAF_PURL.test(p)) helper.purl = p;
  const cpe = cpes.map((c) => c.trim()).find((c) => c.length >= 5 && CSAF_CPE.test(c));
  if (cpe !== undefined) helper.cpe = cpe;
  return helper.purl === undefined && helper.cpe === undefined ? undefined : helper;
}

/**
 * "Component X as part of release Y", the product every status names. It carries the component's
 * purl as its own identification helper, so a consumer that resolves status product ids to purls
 * finds the component without walking the relationship: Grype (grype/vex/csaf/csaf.go) compares
 * `CollectProductIdentificationHelpers(product id)` with the package purl and never follows
 * `product_reference`; gocsaf collects helpers of relationship products too. Trivy
 * (pkg/vex/csaf.go) matches the same helper against the vulnerable package itself, and still
 * finds the release/component pair through the relationship.
 */
function relationshipProduct(input: VexGenerationInput, c: VexComponent, releaseLabel: string): CsafFullProductName {
  const fpn: CsafFullProductName = {
    name: `${componentLabel(c)} as a component of ${releaseLabel}`,
    product_id: csafComponentInReleaseProductId(input, c.ref),
  };
  const helper = helperOf(c.purl, c.cpes);
  if (helper !== undefined) fpn.product_identification_helper = helper;
  return fpn;
}

function productTree(prepared: PreparedVex, published: PreparedVulnerability[]): CsafVexDocument['product_tree'] {
  const { input } = prepared;
  // Only components a published vulnerability names (optional test 6.2.1: no unused product ids).
  const named = new Set(published.flatMap((v) => v.statements.map((s) => s.component.ref)));
  const components = prepared.components.filter((c) => named.has(c.ref));
  const vendor = input.product.vendor ?? input.document.publisherName;
  const releaseLabel = `${input.product.name} ${input.release.version}`;
  const releaseProduct: CsafFullProductName = {
    name: `${vendor} ${releaseLabel}`,
    product_id: csafReleaseProductId(input),
  };
  const releaseHelper = helperOf(input.release.purl ?? null, []);
  if (releaseHelper !== undefined) releaseProduct.product_identification_helper = releaseHelper;

  const nameBranch: CsafBranch = { category: 'product_name', name: input.product.name };
  if (looksLikeVersionRange(input.release.version))
    nameBranch.product = releaseProduct; // 6.1.31 would reject it as a product_version
  else nameBranch.branches = [{ category: 'product_version', name: input.release.version, product: releaseProduct }];

  const tree: CsafVexDocument['product_tree'] = {
    branches: [{ category: 'vendor', name: vendor, branches: [nameBranch] }],
  };
  if (components.length > 0) {
    tree.full_product_names = components.map((c: VexComponent): CsafFullProductName => {
      const fpn: CsafFullProductName = { name: componentLabel(c), product_id: csafComponentProductId(c.ref) };
      const helper = helperOf(c.purl, c.cpes);
      if (helper !== undefined) fpn.product_identification_helper = helper;
      return fpn;
    });
    tree.relationships = components.map((c): CsafRelationship => ({
      category: 'default_component_of',
      full_product_name: relationshipProduct(input, c, releaseLabel),
      product_reference: csafComponentProductId(c.ref),
      relates_to_product_reference: releaseProduct.product_id,
    }));
  }
  return tree;
}

function cvssV3Of(c: NormalizedCvss): CsafCvssV3 | undefined {
  if (!c.computed || (c.version !== '3.0' && c.version !== '3.1')) return undefined;
  return {
    version: c.version,
    vectorString: c.vector,
    baseScore: c.score,
    baseSeverity: c.severity.toUpperCase() as CsafCvssV3['baseSeverity'], // v3 severities are exactly these five
  };
}

function cvssV2Of(c: NormalizedCvss): CsafCvssV2 | undefined {
  return c.computed && c.version === '2.0' ? { version: '2.0', vectorString: c.vector, baseScore: c.score } : undefined;
}

interface Collected<T> {
  item: T;
  productIds: string[];
}
/** Appends `productId` to the entry keyed by `key`, creating it with `make` on first use (keeps first-seen order). */
function collect<T>(map: Map<string, Collected<T>>, key: string, productId: string, make: () => T): void {
  const existing = map.get(key);
  if (existing === undefined) map.set(key, { item: make(), productIds: [productId] });
  else existing.productIds.push(productId);
}

function vulnerabilityOf(
  v: PreparedVulnerability,
  input: VexGenerationInput,
  productIds: Map<string, string>,
): CsafVulnerability {
  const pid = (s: PreparedStatement): string => {
    let id = productIds.get(s.component.ref);
    if (id === undefined)
      productIds.set(s.component.ref, (id = csafComponentInReleaseProductId(input, s.component.ref)));
    return id;
  };
  const cweNames = input.cweNames ?? {};
  const out: CsafVulnerability = {
    notes: [
      {
        category: 'description',
        title: 'Vulnerability description',
        text: v.summary ?? `No description is available for ${v.id}.`,
      },
    ],
    product_status: {},
  };

  // `cve` only holds a CVE id; every other id (GHSA, PYSEC, ...) goes to `ids` (6.1.27.8 needs one of them).
  if (isCveId(v.id)) out.cve = v.id;
  const otherIds = (isCveId(v.id) ? v.aliases : [v.id, ...v.aliases]).map((id) => ({
    system_name: isCveId(id) ? 'CVE' : vulnSystemName(id),
    text: id,
  }));
  if (otherIds.length > 0) out.ids = otherIds;

  // CSAF 2.0 holds one CWE and needs its exact official name (test 6.1.11).
  const namedCwe = v.cwes.find((id) => cweNames[id] !== undefined);
  if (namedCwe !== undefined) out.cwe = { id: namedCwe, name: cweNames[namedCwe]! };
  const unlisted = v.cwes.filter((id) => id !== namedCwe);
  if (unlisted.length > 0) out.notes.push({ category: 'other', title: 'CWE', text: v.cwes.join(', ') });

  // Scores describe products still exposed; a fixed product's score would be misleading (optional test 6.2.19).
  const scored = v.statements.filter((s) => s.status !== 'fixed').map(pid);
  const scores: NonNullable<CsafVulnerability['scores']>[number] = { products: scored };
  const v3 = v.cvssV3 === null || scored.length === 0 ? undefined : cvssV3Of(v.cvssV3);
  const v2 = v.cvssV2 === null || scored.length === 0 ? undefined : cvssV2Of(v.cvssV2);
  if (v3 !== undefined) scores.cvss_v3 = v3;
  if (v2 !== undefined) scores.cvss_v2 = v2;
  if (v3 !== undefined || v2 !== undefined) out.scores = [scores];
  // No CSAF 2.0 field for CVSS v4, EPSS, vectors that do not parse, or scores of fixed-only vulnerabilities: kept as notes.
  for (const c of [v.cvssV4, v.cvssV3, v.cvssV2]) {
    if (c !== null && (c.version === '4.0' || !c.computed || scored.length === 0)) {
      out.notes.push({
        category: 'other',
        title: `CVSS v${c.version}`,
        text: `${c.vector} (base score ${c.score}, ${c.severity})`,
      });
    }
  }
  if (v.epss !== null) {
    out.notes.push({
      category: 'other',
      title: 'EPSS',
      text: `EPSS probability ${v.epss.score} (percentile ${v.epss.percentile}).`,
    });
  }

  const status: Partial<Record<CsafProductStatusGroup, string[]>> = {};
  const flags = new Map<string, Collected<CsafFlagLabel>>();
  const threats = new Map<string, Collected<string>>();
  const remediations = new Map<string, Collected<{ category: CsafRemediationCategory; details: string }>>();
  const details = new Map<string, { labels: string[] }>();

  for (const s of v.statements) {
    const id = pid(s);
    (status[CSAF_PRODUCT_STATUS[s.status]] ??= []).push(id);
    let detailUsed = false;
    if (s.status === 'not_affected') {
      if (s.justification !== null) {
        const label = CSAF_FLAG_LABEL[s.justification];
        collect(flags, label, id, () => label);
      }
      // Impact statement, or (6.1.27.9) a threat is required when there is no flag.
      let impact = s.impactStatement;
      if (impact === null && s.justification === null) {
        impact = s.detail ?? 'Not affected (no justification was recorded).';
        detailUsed = s.detail !== null;
      }
      if (impact !== null) collect(threats, impact, id, () => impact);
    } else if (s.impactStatement !== null) {
      const impact = s.impactStatement;
      collect(threats, impact, id, () => impact);
    }
    if (s.status === 'affected') {
      const category = s.response === null ? CSAF_REMEDIATION_WITHOUT_RESPONSE : CSAF_REMEDIATION[s.response];
      collect(remediations, `${category}\n${s.actionStatement}`, id, () => ({ category, details: s.actionStatement }));
    }
    const text = [
      s.detail !== null && !detailUsed ? s.detail : null,
      s.triaged ? null : 'Matched by SBOM scan; not yet triaged.',
    ]
      .filter((t): t is string => t !== null)
      .join('\n\n');
    if (text !== '') {
      const entry = details.get(text);
      if (entry === undefined) details.set(text, { labels: [componentLabel(s.component)] });
      else entry.labels.push(componentLabel(s.component));
    }
  }
  for (const [text, { labels }] of details)
    out.notes.push({ category: 'details', title: `Analysis: ${labels.join(', ')}`, text });

  out.product_status = status;
  if (flags.size > 0) {
    out.flags = [...flags.values()]
      .sort((a, b) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0))
      .map((f) => ({ label: f.item, product_ids: f.productIds }));
  }
  const threatList: NonNullable<CsafVulnerability['threats']> = [...threats.values()].map((t) => ({
    category: 'impact',
    details: t.item,
    product_ids: t.productIds,
  }));
  if (v.isKev) {
    // Vulnerability-wide fact, so no product_ids.
    threatList.push({
      category: 'exploit_status',
      details:
        'Listed in the CISA Known Exploited Vulnerabilities (KEV) catalog: exploitation in the wild has been observed.',
    });
  }
  if (threatList.length > 0) out.threats = threatList;
  if (remediations.size > 0) {
    out.remediations = [...remediations.values()].map((r) => ({ ...r.item, product_ids: r.productIds }));
  }
  const source = vulnSource(v.id);
  out.references = [{ category: 'external', summary: `${source.name}: ${v.id}`, url: source.url }];
  return out;
}

/** The document's tracking: the VEX document's own, or the provider's for the release when publishing (docs/csaf-provider.md). */
function trackingOf(doc: VexGenerationInput['document']): {
  id: string;
  version: number;
  revisions: VexGenerationInput['document']['revisions'];
} {
  return doc.csafTracking ?? { id: doc.id, version: doc.version, revisions: doc.revisions };
}

function revisionHistory(prepared: PreparedVex): CsafRevision[] {
  const { document: doc } = prepared.input;
  const tracking = trackingOf(doc);
  const supplied = new Map((tracking.revisions ?? []).map((r) => [r.version, r]));
  const history: CsafRevision[] = [];
  let previous = doc.csafTracking?.revisions[0]?.date ?? prepared.firstIssuedAt;
  // Tests 6.1.16/6.1.21: numbers 1..version without gaps, the last one equal to tracking.version.
  for (let n = 1; n <= tracking.version; n++) {
    const r = supplied.get(n);
    let date = n === tracking.version ? doc.generatedAt : (r?.date ?? previous);
    // Test 6.1.14: ascending dates; an out-of-order supplied date is raised to its predecessor's.
    if (Date.parse(date) < Date.parse(previous)) date = previous;
    const summary =
      r?.summary ?? (n === 1 ? 'Initial version.' : `Regenerated from the current dispositions (version ${n}).`);
    history.push({ date, number: String(n), summary });
    previous = date;
  }
  return history;
}

function countsText(vulnerabilities: PreparedVulnerability[]): string {
  const counts = { affected: 0, not_affected: 0, fixed: 0, under_investigation: 0 };
  for (const v of vulnerabilities) for (const s of v.statements) counts[s.status] += 1;
  return (
    `${counts.affected} affected, ${counts.not_affected} not affected, ${counts.fixed} fixed, ` +
    `${counts.under_investigation} under investigation`
  );
}

/**
 * `document.tracking`: id, version, dates, revision history and generator. The one place that
 * decides a CSAF document's identity and revision (the CSAF provider directory names files by
 * `tracking.id`), kept together so a change to the numbering is made here only.
 */
export function csafTracking(
  input: VexGenerationInput,
  history: CsafRevision[],
): CsafVexDocument['document']['tracking'] {
  const doc = input.document;
  const tracking = trackingOf(doc);
  return {
    id: tracking.id,
    status: doc.status,
    version: String(tracking.version),
    initial_release_date: history[0]?.date ?? doc.generatedAt,
    current_release_date: doc.generatedAt,
    revision_history: history,
    generator: { date: doc.generatedAt, engine: { name: GENERATOR_NAME, version: GENERATOR_VERSION } },
  };
}

/**
 * Trivy's CSAF filter dereferences `cve` of every vulnerability (pkg/vex/csaf.go:
 * `string(*item.CVE) == vuln.VulnerabilityID`), so one entry without `cve` crashes the scan for
 * the whole document; Grype ignores such entries anyway (it matches on `cve` only). CSAF allows a
 * vulnerability with `ids` alone, but to keep the document usable we publish only vulnerabilities
 * that have a CVE id and list the others in a document note (docs/vex-mapping.md §10).
 */
function withoutCveNote(vulnerabilities: PreparedVulnerability[]): CsafNote | undefined {
  if (vulnerabilities.length === 0) return undefined;
  const lines = vulnerabilities.map((v) => {
    const statuses = v.statements.map(
      (s) => `${componentLabel(s.component)}: ${s.status}${s.justification === null ? '' : ` (${s.justification})`}`,
    );
    return `${v.id}: ${statuses.join('; ')}`;
  });
  return {
    category: 'other',
    title: 'Vulnerabilities without a CVE id',
    text:
      'These vulnerabilities have no CVE id and are not listed under vulnerabilities (scanners that read CSAF VEX match on the CVE id); ' +
      `the CycloneDX and OpenVEX documents of this release carry them in machine-readable form. ${lines.join('. ')}.`,
  };
}

export function generateCsafFromPrepared(prepared: PreparedVex): CsafVexDocument {
  const { input } = prepared;
  const doc = input.document;
  const published = prepared.vulnerabilities.filter((v) => isCveId(v.id));
  if (published.length === 0) {
    throw new VexGenerationError(
      'vex_no_statements',
      prepared.vulnerabilities.length === 0
        ? 'A CSAF VEX document needs at least one vulnerability (test 6.1.27.11)'
        : 'A CSAF VEX document needs at least one vulnerability with a CVE id (test 6.1.27.11); this release has only advisories without one: use CycloneDX or OpenVEX',
    );
  }
  const releaseLabel = `${input.product.name} ${input.release.version}`;
  const history = revisionHistory(prepared);
  const productIds = new Map<string, string>(); // component ref -> relationship product id (hashing is the hot path)
  const notes: CsafNote[] = [
    {
      category: 'summary',
      title: 'Summary',
      text:
        `Exploitability of ${published.length} vulnerabilities in the components of ${releaseLabel} ` +
        `(${countsText(published)}), from ${doc.publisherName}.`,
    },
  ];
  const excluded = withoutCveNote(prepared.vulnerabilities.filter((v) => !isCveId(v.id)));
  if (excluded !== undefined) notes.push(excluded);
  if (input.sboms.length > 0) {
    const lines = [...input.sboms]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((s) => {
        const hash = sha256Hex(s.fileHash);
        return `${s.format}${s.specVersion === null ? '' : ` ${s.specVersion}`} SBOM ${s.id}${hash === null ? '' : ` (SHA-256 ${hash})`}`;
      });
    notes.push({
      category: 'general',
      title: 'Source SBOMs',
      text: `Components were identified from: ${lines.join('; ')}.`,
    });
  }

  const document: CsafVexDocument['document'] = {
    category: 'csaf_vex',
    csaf_version: '2.0',
    lang: 'en',
    publisher: doc.csafTracking?.publisher ?? {
      category: 'vendor',
      name: doc.publisherName,
      namespace: doc.publisherNamespace,
    },
    title: `VEX for ${releaseLabel}`,
    notes,
    tracking: csafTracking(input, history),
  };
  // Optional test 6.2.11: the canonical URL, whose file name is the tracking id's.
  if (doc.canonicalUrl !== undefined)
    document.references = [{ category: 'self', summary: 'Canonical URL of this document', url: doc.canonicalUrl }];
  // A final document is the public disclosure: TLP:WHITE (CSAF 2.0 uses TLP v1 labels). Drafts carry no label.
  if (doc.status === 'final') document.distribution = { tlp: { label: 'WHITE', url: 'https://www.first.org/tlp/' } };

  return canonicalize<CsafVexDocument>({
    document,
    product_tree: productTree(prepared, published),
    vulnerabilities: published.map((v) => vulnerabilityOf(v, input, productIds)),
  });
}

/** CSAF 2.0 `csaf_vex` document (plain object, keys already in canonical order). */
export function generateCsaf(input: VexGenerationInput): CsafVexDocument {
  return generateCsafFromPrepared(prepareVex(input));
}
