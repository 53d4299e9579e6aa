/**
 * CSAF matching of Trivy (pkg/vex/csaf.go) and Grype (grype/vex/csaf/csaf.go) over gocsaf's product
 * tree (csaf/advisory.go, util.go).
 */
import { arr, obj, parsePurl, qualifiers, str, type Detected } from './common';

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
