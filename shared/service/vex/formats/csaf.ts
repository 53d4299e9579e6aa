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
import { csafComponentInReleaseProductId, productTree } from './csaf-product-tree';
import type { CsafCvssV2, CsafCvssV3, CsafNote, CsafRevision, CsafVexDocument, CsafVulnerability } from './csaf-types';
import { VexGenerationError } from './errors';
import { canonicalize } from './serialize';
import { isCveId } from '../../matching/cve-id';
import { GENERATOR_NAME, GENERATOR_VERSION, componentLabel, sha256Hex, vulnSource, vulnSystemName } from './util';
import type { VexGenerationInput } from '../model';

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
