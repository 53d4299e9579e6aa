/**
 * The VEX matching rules of the scanners our documents are made for, ported from their source
 * (read with the code search; each function names the file it follows). Small and faithful
 * rather than complete: only the paths a scan of an SBOM or an image takes through a VEX file.
 * Used by test/unit/vex-consumers.test.ts and test/integration/vex-interop.test.ts.
 */
import { PackageURL } from 'packageurl-js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function parsePurl(s: string): PackageURL | null {
  try {
    return PackageURL.fromString(s);
  } catch {
    return null;
  }
}
function qualifiers(p: PackageURL): Record<string, string> {
  return p.qualifiers ?? {};
}

/** A detected vulnerable package as the scanners see it. */
export interface Detected {
  vulnerabilityId: string;
  /** The package's purl as the scanner reports it. */
  purl: string;
  /** bom-ref of the package in the scanned CycloneDX SBOM (Trivy `PkgIdentifier.BOMRef`). */
  bomRef?: string;
}

// ---------------------------------------------------------------------------------------------
// Trivy: CycloneDX VEX (aquasecurity/trivy pkg/vex/cyclonedx.go)
// ---------------------------------------------------------------------------------------------

/** cyclonedx-go `ParseBOMLink`: its regex (lower-case UUID), then `url.QueryUnescape` of the ref. */
export function parseBomLink(s: string): { serialNumber: string; version: number; reference: string } | null {
  const m =
    /^urn:cdx:([\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12})\/([1-9]\d*)(?:#([\da-zA-Z\-._~%!$&'()*+,;=:@/?]+))?$/.exec(
      s,
    );
  if (m === null) return null;
  let reference = '';
  if (m[3] !== undefined) {
    try {
      reference = decodeURIComponent(m[3].replace(/\+/g, ' ')); // QueryUnescape: '+' is a space
    } catch {
      return null;
    }
  }
  return { serialNumber: `urn:uuid:${m[1]!}`, version: Number(m[2]), reference };
}

/** trivy pkg/fanal/types `PkgIdentifier.Match`: the string is the package's bom-ref or (re-encoded) purl. */
function pkgIdentifierMatch(pkg: Detected, s: string): boolean {
  let target = s;
  if (s.startsWith('pkg:')) target = parsePurl(s)?.toString() ?? s;
  return pkg.bomRef === target || parsePurl(pkg.purl)?.toString() === target;
}

/** cdxStatus: CycloneDX analysis state → Trivy finding status. */
function cdxStatus(state: string | undefined): string {
  switch (state) {
    case 'resolved':
    case 'resolved_with_pedigree':
      return 'fixed';
    case 'exploitable':
      return 'affected';
    case 'in_triage':
      return 'under_investigation';
    case 'false_positive':
    case 'not_affected':
      return 'not_affected';
    default:
      return 'unknown';
  }
}

/**
 * Trivy `CycloneDX.Filter`: the FIRST vulnerability entry whose id equals the detected id
 * (`lo.Find`), then each `affects[].ref` must be a BOM-Link whose serial number and version equal
 * the scanned SBOM's, and name the package; not_affected / fixed hide the finding.
 * Returns the status that hid it, or null when the finding stays.
 */
export function trivyCycloneDx(
  vex: unknown,
  sbom: { serialNumber: string; version: number },
  pkg: Detected,
): string | null {
  const statement = arr(obj(vex).vulnerabilities)
    .map(obj)
    .find((v) => v.id === pkg.vulnerabilityId);
  if (statement === undefined) return null;
  const status = cdxStatus(str(obj(statement.analysis).state));
  for (const affect of arr(statement.affects).map(obj)) {
    const link = parseBomLink(str(affect.ref) ?? '');
    if (link === null) continue; // "Unable to parse BOM-Link"
    if (sbom.serialNumber !== link.serialNumber || sbom.version !== link.version) continue; // "URN doesn't match with SBOM"
    if (pkgIdentifierMatch(pkg, link.reference) && (status === 'not_affected' || status === 'fixed')) return status;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// go-vex (openvex/go-vex pkg/vex/functions_documents.go, vex.go): used by Trivy and Grype for OpenVEX
// ---------------------------------------------------------------------------------------------

/** go-vex `PurlMatches(purl1, purl2)`: purl1 is the general side (no version = any; its qualifiers must all be in purl2). */
export function purlMatches(general: string, specific: string): boolean {
  const p1 = parsePurl(general);
  const p2 = parsePurl(specific);
  if (p1 === null || p2 === null) return false;
  if (p1.type !== p2.type || (p1.namespace ?? '') !== (p2.namespace ?? '') || p1.name !== p2.name) return false;
  const v1 = p1.version ?? '';
  const v2 = p2.version ?? '';
  if (v1 !== '' && v2 === '') return false;
  if (v1 !== v2 && v1 !== '' && v2 !== '') return false;
  const q2 = qualifiers(p2);
  return Object.entries(qualifiers(p1)).every(([k, v]) => q2[k] === v);
}

/** go-vex `Component.Matches`: `@id` exactly (or as a purl), an identifier exactly or as a purl, or a hash value. */
export function componentMatches(component: unknown, identifier: string): boolean {
  const c = obj(component);
  const id = str(c['@id']) ?? '';
  if (id !== '' && id === identifier) return true;
  if (id.startsWith('pkg:') && purlMatches(id, identifier)) return true;
  for (const [type, value] of Object.entries(obj(c.identifiers))) {
    if (value === identifier) return true;
    if (type === 'purl' && identifier.startsWith('pkg:') && typeof value === 'string' && purlMatches(value, identifier))
      return true;
  }
  return Object.values(obj(c.hashes)).some((hash) => hash === identifier);
}

/** go-vex `Statement.Matches(vuln, product, subcomponents)` with `Product.Matches` and `Vulnerability.Matches` (name or alias). */
function statementMatches(statement: Json, vuln: string, product: string, subcomponents: string[]): boolean {
  const v = obj(statement.vulnerability);
  if (v.name !== vuln && !arr(v.aliases).includes(vuln)) return false;
  for (const p of arr(statement.products).map(obj)) {
    const productMatches = (sub: string): boolean =>
      componentMatches(p, product) && (sub === '' || arr(p.subcomponents).some((s) => componentMatches(s, sub)));
    if (subcomponents.length === 0 ? productMatches('') : subcomponents.some(productMatches)) return true;
  }
  return false;
}

/** go-vex `VEX.Matches`: matching statements, oldest first (SortStatements by timestamp; callers take the last). */
export function openVexMatches(vex: unknown, vuln: string, product: string, subcomponents: string[]): Json[] {
  const matches = arr(obj(vex).statements)
    .map(obj)
    .filter((s) => statementMatches(s, vuln, product, subcomponents));
  return matches.sort((a, b) => Date.parse(str(a.timestamp) ?? '') - Date.parse(str(b.timestamp) ?? ''));
}

/**
 * Trivy `OpenVEX.NotAffected` through `filterVulnerabilities`/`reachRoot` (pkg/vex/openvex.go, vex.go):
 * first the package itself as product with no subcomponent, then the root (the scanned artifact,
 * its purl) with the package as subcomponent (Trivy passes `[""]` when there is none). The last
 * matching statement decides; not_affected / fixed hide the finding.
 */
export function trivyOpenVex(vex: unknown, rootPurl: string, pkg: Detected): string | null {
  for (const [product, sub] of [
    [pkg.purl, ''],
    [rootPurl, pkg.purl],
  ] as const) {
    const statements = openVexMatches(vex, pkg.vulnerabilityId, product, [sub]);
    const last = statements.at(-1);
    if (last !== undefined && (last.status === 'not_affected' || last.status === 'fixed')) return String(last.status);
  }
  return null;
}

/**
 * openvex/discovery `GenerateReferenceIdentifiers` for an image reference given by digest: the
 * digest as a bare hash, and two `pkg:oci` purls with `repository_url` built the way that code
 * builds it (registry + repository path with the image name cut out + image name), one plain and
 * one with tag/os/arch qualifiers. Grype's product identifiers for `grype <image>`.
 */
export function grypeImageIdentifiers(reference: {
  registry: string;
  repository: string;
  digest: string;
  tag?: string;
  os?: string;
  arch?: string;
}): string[] {
  const parts = reference.repository.split('/');
  const imageName = parts[parts.length - 1]!;
  const registryPath = `${reference.registry}/${reference.repository.split(imageName).join('')}`;
  const base: Record<string, string> = { repository_url: registryPath + imageName };
  const full: Record<string, string> = {
    ...base,
    ...(reference.tag ? { tag: reference.tag } : {}),
    ...(reference.os ? { os: reference.os } : {}),
    ...(reference.arch ? { arch: reference.arch } : {}),
  };
  return [
    new PackageURL('oci', null, imageName, reference.digest, base, null).toString(),
    new PackageURL('oci', null, imageName, reference.digest, full, null).toString(),
    reference.digest.replace(/^sha256:/, ''),
  ];
}

/**
 * Grype `openvex.Processor.FilterMatches` (grype/vex/openvex/implementation.go): for each product
 * identifier of the scanned image, `doc.Matches(vuln, product, [package purl])`; the first match
 * decides; not_affected / fixed move the match to the ignored list (default VEX ignore rules).
 */
export function grypeOpenVex(vex: unknown, productIdentifiers: string[], pkg: Detected): string | null {
  for (const product of productIdentifiers) {
    const statements = openVexMatches(vex, pkg.vulnerabilityId, product, [pkg.purl]);
    const first = statements[0];
    if (first !== undefined)
      return first.status === 'not_affected' || first.status === 'fixed' ? String(first.status) : null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// CSAF (gocsaf/csaf csaf/advisory.go, util.go; Trivy pkg/vex/csaf.go; Grype grype/vex/csaf/csaf.go)
// ---------------------------------------------------------------------------------------------

/** gocsaf `ProductTree.CollectProductIdentificationHelpers`: full product names, branches (recursive) and relationship products with that id. */
function helperPurls(doc: unknown, productId: string): string[] {
  const tree = obj(obj(doc).product_tree);
  const out: string[] = [];
  const visit = (fpn: unknown) => {
    const f = obj(fpn);
    const purl = str(obj(f.product_identification_helper).purl);
    if (f.product_id === productId && purl !== undefined) out.push(purl);
  };
  arr(tree.full_product_names).forEach(visit);
  const walk = (branch: unknown): void => {
    const b = obj(branch);
    visit(b.product);
    arr(b.branches).forEach(walk);
  };
  arr(tree.branches).forEach(walk);
  arr(tree.relationships).forEach((r) => visit(obj(r).full_product_name));
  return out;
}

/** trivy pkg/purl `PackageURL.Match`: the VEX purl constrains (no version = any, subpath and qualifiers must be in the target). */
function trivyPurlMatch(constraint: string, target: string): boolean {
  const p = parsePurl(constraint);
  const t = parsePurl(target);
  if (p === null || t === null) return false;
  if (p.type !== t.type || (p.namespace ?? '') !== (t.namespace ?? '') || p.name !== t.name) return false;
  if ((p.version ?? '') !== '' && p.version !== t.version) return false;
  if ((p.subpath ?? '') !== '' && p.subpath !== t.subpath) return false;
  const q = qualifiers(t);
  return Object.entries(qualifiers(p)).every(([k, v]) => q[k] === v);
}

const CSAF_RELATIONS = new Set(['default_component_of', 'installed_on', 'installed_with']);

/**
 * Trivy `CSAF.NotAffected` (pkg/vex/csaf.go) called as `reachRoot` calls it: the package itself
 * as product (no sub-product), then the root with the package as sub-product. `lo.Find` over the
 * vulnerabilities dereferences `cve` of every entry before comparing: an entry without `cve` is
 * a nil pointer dereference (a panic), reproduced here as a thrown error.
 */
export function trivyCsaf(doc: unknown, rootPurl: string, pkg: Detected): string | null {
  const vulnerabilities = arr(obj(doc).vulnerabilities).map(obj);
  const found = vulnerabilities.find((v) => {
    if (typeof v.cve !== 'string')
      throw new Error(
        'panic: runtime error: invalid memory address or nil pointer dereference (csaf.Vulnerability.CVE)',
      );
    return v.cve === pkg.vulnerabilityId;
  });
  if (found === undefined) return null;
  const status = obj(found.product_status);
  const tree = obj(obj(doc).product_tree);
  const match = (product: string, subProduct: string | null): string | null => {
    for (const [label, list] of [
      ['not_affected', status.known_not_affected],
      ['fixed', status.fixed],
    ] as const) {
      for (const productId of arr(list).map(String)) {
        if (helperPurls(doc, productId).some((p) => trivyPurlMatch(p, product))) return label;
        if (subProduct === null) continue; // newer Trivy returns early when there is no sub-product
        for (const r of arr(tree.relationships).map(obj)) {
          if (obj(r.full_product_name).product_id !== productId || !CSAF_RELATIONS.has(String(r.category))) continue;
          const products = helperPurls(doc, String(r.relates_to_product_reference));
          const subs = helperPurls(doc, String(r.product_reference));
          if (products.some((p) => trivyPurlMatch(p, product)) && subs.some((s) => trivyPurlMatch(s, subProduct)))
            return label;
        }
      }
    }
    return null;
  };
  return match(pkg.purl, null) ?? match(rootPurl, pkg.purl);
}

/**
 * Grype `advisories.matches(vulnID, purl)` (grype/vex/csaf/csaf.go): vulnerabilities whose `cve`
 * equals the id; a product id in any status list whose identification helpers contain the
 * package purl as an exact string (`slices.Contains`). Returns the CSAF status list it was found in.
 */
export function grypeCsaf(doc: unknown, pkg: Detected): string | null {
  for (const v of arr(obj(doc).vulnerabilities).map(obj)) {
    if (typeof v.cve !== 'string' || v.cve !== pkg.vulnerabilityId) continue;
    for (const [status, list] of Object.entries(obj(v.product_status))) {
      if (arr(list).some((id) => helperPurls(doc, String(id)).includes(pkg.purl))) return status;
    }
  }
  return null;
}

// gocsaf csaf/advisory.go: the struct fields (json tags) DisallowUnknownFields checks against,
// the required fields each Validate() checks, and the UnmarshalText patterns/alternatives.
const FIELDS: Record<string, string[]> = {
  advisory: ['document', 'product_tree', 'vulnerabilities'],
  document: [
    'acknowledgements',
    'aggregate_severity',
    'category',
    'csaf_version',
    'distribution',
    'lang',
    'notes',
    'publisher',
    'references',
    'source_lang',
    'title',
    'tracking',
  ],
  distribution: ['text', 'tlp'],
  tlp: ['label', 'url'],
  publisher: ['category', 'contact_details', 'issuing_authority', 'name', 'namespace'],
  tracking: [
    'aliases',
    'current_release_date',
    'generator',
    'id',
    'initial_release_date',
    'revision_history',
    'status',
    'version',
  ],
  generator: ['date', 'engine'],
  engine: ['name', 'version'],
  revision: ['date', 'legacy_version', 'number', 'summary'],
  note: ['audience', 'category', 'text', 'title'],
  reference: ['category', 'summary', 'url'],
  product_tree: ['branches', 'full_product_names', 'product_groups', 'relationships'],
  branch: ['branches', 'category', 'name', 'product'],
  full_product_name: ['name', 'product_id', 'product_identification_helper'],
  helper: ['cpe', 'hashes', 'model_numbers', 'purl', 'sbom_urls', 'serial_numbers', 'skus', 'x_generic_uris'],
  relationship: ['category', 'full_product_name', 'product_reference', 'relates_to_product_reference'],
  vulnerability: [
    'acknowledgements',
    'cve',
    'cwe',
    'discovery_date',
    'flags',
    'ids',
    'involvements',
    'notes',
    'product_status',
    'references',
    'release_date',
    'remediations',
    'scores',
    'threats',
    'title',
  ],
  cwe: ['id', 'name'],
  flag: ['date', 'group_ids', 'label', 'product_ids'],
  id: ['system_name', 'text'],
  product_status: [
    'first_affected',
    'first_fixed',
    'fixed',
    'known_affected',
    'known_not_affected',
    'last_affected',
    'recommended',
    'under_investigation',
  ],
  remediation: ['category', 'date', 'details', 'entitlements', 'group_ids', 'product_ids', 'restart_required', 'url'],
  score: ['cvss_v2', 'cvss_v3', 'products'],
  cvss_v2: [
    'version',
    'vectorString',
    'accessVector',
    'accessComplexity',
    'authentication',
    'confidentialityImpact',
    'integrityImpact',
    'availabilityImpact',
    'baseScore',
    'exploitability',
    'remediationLevel',
    'reportConfidence',
    'temporalScore',
    'collateralDamagePotential',
    'targetDistribution',
    'confidentialityRequirement',
    'integrityRequirement',
    'availabilityRequirement',
    'environmentalScore',
  ],
  cvss_v3: [
    'version',
    'vectorString',
    'attackVector',
    'attackComplexity',
    'privilegesRequired',
    'userInteraction',
    'scope',
    'confidentialityImpact',
    'integrityImpact',
    'availabilityImpact',
    'baseScore',
    'baseSeverity',
    'exploitCodeMaturity',
    'remediationLevel',
    'reportConfidence',
    'temporalScore',
    'temporalSeverity',
    'confidentialityRequirement',
    'integrityRequirement',
    'availabilityRequirement',
    'modifiedAttackVector',
    'modifiedAttackComplexity',
    'modifiedPrivilegesRequired',
    'modifiedUserInteraction',
    'modifiedScope',
    'modifiedConfidentialityImpact',
    'modifiedIntegrityImpact',
    'modifiedAvailabilityImpact',
    'environmentalScore',
    'environmentalSeverity',
  ],
  threat: ['category', 'date', 'details', 'group_ids', 'product_ids'],
};
const REQUIRED: Record<string, string[]> = {
  document: ['category', 'csaf_version', 'publisher', 'title', 'tracking'],
  tracking: ['current_release_date', 'id', 'initial_release_date', 'revision_history', 'status', 'version'],
  publisher: ['category', 'name', 'namespace'],
  engine: ['version'],
  generator: ['engine'],
  revision: ['date', 'number', 'summary'],
  note: ['category', 'text'],
  reference: ['summary', 'url'],
  branch: ['category', 'name'],
  full_product_name: ['name', 'product_id'],
  relationship: ['category', 'product_reference', 'relates_to_product_reference'],
  cwe: ['id', 'name'],
  flag: ['label'],
  id: ['system_name', 'text'],
  remediation: ['category', 'details'],
  score: ['products'],
  cvss_v2: ['version', 'vectorString', 'baseScore'],
  cvss_v3: ['version', 'vectorString', 'baseScore', 'baseSeverity'],
  threat: ['category', 'details'],
};
const PATTERNS: Record<string, RegExp> = {
  'vulnerability.cve': /^CVE-[0-9]{4}-[0-9]{4,}$/,
  'cwe.id': /^CWE-[1-9]\d{0,5}$/,
  'helper.purl': /^pkg:[A-Za-z.\-+][A-Za-z0-9.\-+]*\/.+/,
  'tracking.id': /^[\S](.*[\S])?$/,
  'tracking.version':
    /^(0|[1-9][0-9]*)$|^((0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?)$/,
  'revision.number': /^(0|[1-9][0-9]*)$|^((0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*))/,
  'document.csaf_version': /^2\.0$/,
  'tracking.status': /^(draft|final|interim)$/,
  'note.category': /^(description|details|faq|general|legal_disclaimer|other|summary)$/,
  'reference.category': /^(external|self)$/,
  'relationship.category':
    /^(default_component_of|external_component_of|installed_on|installed_with|optional_component_of)$/,
  'flag.label':
    /^(component_not_present|inline_mitigations_already_exist|vulnerable_code_cannot_be_controlled_by_adversary|vulnerable_code_not_in_execute_path|vulnerable_code_not_present)$/,
  'remediation.category': /^(mitigation|no_fix_planned|none_available|vendor_fix|workaround)$/,
  'threat.category': /^(exploit_status|impact|target_set)$/,
  'cvss_v3.version': /^3\.[01]$/,
  'cvss_v2.version': /^2\.0$/,
  'cvss_v3.vectorString':
    /^CVSS:3[.][01]\/((AV:[NALP]|AC:[LH]|PR:[NLH]|UI:[NR]|S:[UC]|[CIA]:[NLH]|E:[XUPFH]|RL:[XOTWU]|RC:[XURC]|[CIA]R:[XLMH]|MAV:[XNALP]|MAC:[XLH]|MPR:[XNLH]|MUI:[XNR]|MS:[XUC]|M[CIA]:[XNLH])\/)*(AV:[NALP]|AC:[LH]|PR:[NLH]|UI:[NR]|S:[UC]|[CIA]:[NLH]|E:[XUPFH]|RL:[XOTWU]|RC:[XURC]|[CIA]R:[XLMH]|MAV:[XNALP]|MAC:[XLH]|MPR:[XNLH]|MUI:[XNR]|MS:[XUC]|M[CIA]:[XNLH])$/,
};
/** Which schema object each child field holds (arrays: their elements). */
const CHILDREN: Record<string, Record<string, string>> = {
  advisory: { document: 'document', product_tree: 'product_tree', vulnerabilities: 'vulnerability' },
  document: {
    distribution: 'distribution',
    notes: 'note',
    publisher: 'publisher',
    references: 'reference',
    tracking: 'tracking',
  },
  distribution: { tlp: 'tlp' },
  tracking: { generator: 'generator', revision_history: 'revision' },
  generator: { engine: 'engine' },
  product_tree: { branches: 'branch', full_product_names: 'full_product_name', relationships: 'relationship' },
  branch: { branches: 'branch', product: 'full_product_name' },
  full_product_name: { product_identification_helper: 'helper' },
  relationship: { full_product_name: 'full_product_name' },
  vulnerability: {
    cwe: 'cwe',
    flags: 'flag',
    ids: 'id',
    notes: 'note',
    product_status: 'product_status',
    references: 'reference',
    remediations: 'remediation',
    scores: 'score',
    threats: 'threat',
  },
  score: { cvss_v2: 'cvss_v2', cvss_v3: 'cvss_v3' },
};

/**
 * gocsaf `LoadAdvisory` (what Grype's `csaf.IsCSAF` / `ReadVexDocuments` call): `StrictJSONParse`
 * (DisallowUnknownFields, the UnmarshalText patterns) then `Advisory.Validate` (required fields).
 * Returns the errors; Grype treats a document with any as "not CSAF" and ignores it.
 */
export function gocsafLoadAdvisory(doc: unknown): string[] {
  const errors: string[] = [];
  const check = (value: unknown, type: string, path: string): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => check(v, type, `${path}[${i}]`));
      return;
    }
    const o = obj(value);
    const known = FIELDS[type];
    if (known)
      for (const key of Object.keys(o)) if (!known.includes(key)) errors.push(`${path}: json: unknown field "${key}"`);
    for (const key of REQUIRED[type] ?? [])
      if (o[key] === undefined || o[key] === null) errors.push(`${path}: '${key}' is missing`);
    for (const [key, v] of Object.entries(o)) {
      const pattern = PATTERNS[`${type}.${key}`];
      if (pattern && (typeof v !== 'string' || !pattern.test(v)))
        errors.push(`${path}.${key}: does not match ${String(pattern)}`);
      const child = CHILDREN[type]?.[key];
      if (child) check(v, child, `${path}.${key}`);
    }
  };
  check(doc, 'advisory', '$');
  return errors;
}

// ---------------------------------------------------------------------------------------------
// Dependency-Track (DependencyTrack/dependency-track CycloneDXVexImporter.java; cyclonedx-core-java ObjectLocator)
// ---------------------------------------------------------------------------------------------

/** Vulnerability.Source enum of Dependency-Track (model/Vulnerability.java). */
const DT_SOURCES = new Set(['NVD', 'NPM', 'GITHUB', 'VULNDB', 'OSSINDEX', 'RETIREJS', 'INTERNAL', 'OSV']);

export interface DtProjectFinding {
  source: string;
  vulnId: string;
  component: { purl: string; name: string; version: string };
}

/**
 * `CycloneDXVexImporter.applyVex`: entries need id, a known source, affects and an analysis; the
 * vulnerability is looked up by (source name, id) among the project's findings; each affect ref is
 * located inside the VEX by exact bom-ref (`ObjectLocator`: metadata.component, then components,
 * recursively). A located component applies to the project components with its identity (here:
 * purl, the ComponentIdentity field Dependency-Track matches first); the metadata component, or a
 * BOM-Link that is not located, applies to EVERY component of the project with that vulnerability.
 * Returns `vulnId component-purl → analysis state` for every analysis the import writes.
 */
export function dependencyTrackApplyVex(vex: unknown, project: DtProjectFinding[]): Map<string, string> {
  const applied = new Map<string, string>();
  const bom = obj(vex);
  const locate = (ref: string): { kind: 'metadata' | 'component'; purl?: string } | null => {
    const metadataComponent = obj(obj(bom.metadata).component);
    if (metadataComponent['bom-ref'] === ref) return { kind: 'metadata' };
    const find = (list: unknown): Json | undefined => {
      for (const c of arr(list).map(obj)) {
        if (c['bom-ref'] === ref) return c;
        const child = find(c.components);
        if (child) return child;
      }
      return undefined;
    };
    const c = find(bom.components);
    return c ? { kind: 'component', ...(typeof c.purl === 'string' ? { purl: c.purl } : {}) } : null;
  };
  for (const v of arr(bom.vulnerabilities).map(obj)) {
    const source = str(obj(v.source).name);
    if (!str(v.id) || !source || !DT_SOURCES.has(source) || arr(v.affects).length === 0 || v.analysis === undefined)
      continue;
    const findings = project.filter((f) => f.source === source && f.vulnId === v.id);
    if (findings.length === 0) continue; // "the project is not affected by it"
    const state = String(obj(v.analysis).state);
    for (const affect of arr(v.affects).map(obj)) {
      const ref = str(affect.ref) ?? '';
      const located = locate(ref);
      const targets =
        located?.kind === 'metadata' || (located === null && parseBomLink(ref) !== null)
          ? findings
          : located?.kind === 'component'
            ? findings.filter((f) => located.purl !== undefined && f.component.purl === located.purl)
            : [];
      for (const f of targets) applied.set(`${String(v.id)} ${f.component.purl}`, state);
    }
  }
  return applied;
}
