/**
 * The CSAF product tree: vendor -> product name -> release version (the release product), the
 * matched components as full product names, and one `default_component_of` relationship per
 * component, with the product ids every status, flag, threat, remediation and score names.
 */
import type { PreparedVex, PreparedVulnerability } from './prepare';
import type {
  CsafBranch,
  CsafFullProductName,
  CsafProductIdentificationHelper,
  CsafRelationship,
  CsafVexDocument,
} from './csaf-types';
import { componentLabel, shortHash, validPurl } from './util';
import type { VexComponent, VexGenerationInput } from '../model';

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

export function productTree(
  prepared: PreparedVex,
  published: PreparedVulnerability[],
): CsafVexDocument['product_tree'] {
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
  // A version range as a product_version: CSAF's test 6.1.31 would reject it.
  if (looksLikeVersionRange(input.release.version)) nameBranch.product = releaseProduct;
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
