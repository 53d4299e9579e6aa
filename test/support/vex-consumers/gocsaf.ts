/**
 * gocsaf's strict loading of a CSAF advisory (csaf/advisory.go), the check Grype applies before it
 * reads a document as CSAF.
 */
import { obj } from './common';

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
