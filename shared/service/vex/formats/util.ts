/** Deterministic helpers shared by the three generators (no clock, no randomness, no I/O). */
import { createHash } from 'node:crypto';
import { PackageURL } from 'packageurl-js';
import { trimTrailing } from '../../text';
import { isCveId } from '../../matching/cve-id';

export const GENERATOR_NAME = 'Vexdesk';
/** Bump when generated output changes shape; recorded in every document's tooling field. */
export const GENERATOR_VERSION = '1.0.0';

/** Namespace of Vexdesk name-based UUIDs: uuidV5('https://vexdesk.example/ns/vex', RFC 4122 URL namespace). Never change it. */
const VEXDESK_UUID_NAMESPACE = '8af814df-1b07-52c3-b9e2-45c01a184666';

/** RFC 4122 version 5 (SHA-1, name-based) UUID. */
export function uuidV5(name: string, namespace: string = VEXDESK_UUID_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Short stable id fragment (hex of SHA-256). */
export function shortHash(value: string, length = 16): string {
  return createHash('sha256').update(value, 'utf8').digest('hex').slice(0, length);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Total, locale-independent order (no ICU, so bytes never depend on the runtime): digit
 * runs compare numerically (CVE-2021-4104 < CVE-2021-44228), everything else by UTF-16
 * code unit. Allocation-free because sorting 2,000-finding releases calls it ~10^5 times.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  const la = a.length;
  const lb = b.length;
  let i = 0;
  let j = 0;
  while (i < la && j < lb) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      let si = i;
      while (si < la && a.charCodeAt(si) === 48) si++;
      let sj = j;
      while (sj < lb && b.charCodeAt(sj) === 48) sj++;
      let ei = si;
      while (ei < la && isDigit(a.charCodeAt(ei))) ei++;
      let ej = sj;
      while (ej < lb && isDigit(b.charCodeAt(ej))) ej++;
      if (ei - si !== ej - sj) return ei - si - (ej - sj);
      for (let k = 0; k < ei - si; k++) {
        const d = a.charCodeAt(si + k) - b.charCodeAt(sj + k);
        if (d !== 0) return d;
      }
      i = ei;
      j = ej;
    } else {
      if (ca !== cb) return ca - cb;
      i++;
      j++;
    }
  }
  if (i < la || j < lb) return la - i - (lb - j);
  return a < b ? -1 : 1; // same numbers with different zero padding
}

export function uniqueSorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareText);
}

/** Trimmed text, or null when empty. */
export function cleanText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const t = value.trim();
  return t === '' ? null : t;
}

export interface VulnSource {
  name: string;
  url: string;
}

/**
 * Canonical public page of a vulnerability id, by id prefix. The names are Dependency-Track's
 * `Vulnerability.Source` enum names: its CycloneDX VEX import looks the vulnerability up by
 * (source name, id) and skips an entry whose source it does not know (docs/vex-mapping.md §10).
 */
export function vulnSource(id: string): VulnSource {
  if (isCveId(id)) return { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${id}` };
  if (id.startsWith('GHSA-')) return { name: 'GITHUB', url: `https://github.com/advisories/${id}` };
  return { name: 'OSV', url: `https://osv.dev/vulnerability/${encodeURIComponent(id)}` };
}

/** Database name of a non-CVE id, for CSAF `ids[].system_name`. */
export function vulnSystemName(id: string): string {
  const prefix = id.split('-', 1)[0] ?? '';
  const names: Record<string, string> = {
    GHSA: 'GitHub Security Advisories',
    PYSEC: 'PyPI Advisory Database',
    GO: 'Go Vulnerability Database',
    RUSTSEC: 'RustSec Advisory Database',
    OSV: 'OSV',
  };
  return names[prefix] ?? 'OSV';
}

const purlValidity = new Map<string, boolean>();
/** Parses a purl with the same library the CSAF validator uses (test 6.1.13); null when invalid. */
export function validPurl(purl: string | null | undefined): string | null {
  const p = cleanText(purl);
  if (p === null) return null;
  let ok = purlValidity.get(p);
  if (ok === undefined) {
    try {
      PackageURL.fromString(p);
      ok = true;
    } catch {
      ok = false;
    }
    // Memoised (parsing dominates large releases); bounded for long-lived Lambda containers.
    if (purlValidity.size >= 50_000) purlValidity.clear();
    purlValidity.set(p, ok);
  }
  return ok ? p : null;
}

/**
 * The purl without qualifiers (null when it has none or does not parse). VEX matchers treat the
 * statement's purl as the general side: go-vex `PurlMatches` and Trivy `PackageURL.Match` require
 * every qualifier of the statement's purl in the scanned one, and scanners add or drop qualifiers
 * (`arch`, `distro`, `repository_url`) that the SBOM did not have, so this form matches them all.
 */
export function qualifierFreePurl(purl: string | null | undefined): string | null {
  const p = validPurl(purl);
  if (p === null) return null;
  const parsed = PackageURL.fromString(p);
  if (parsed.qualifiers === undefined || parsed.qualifiers === null || Object.keys(parsed.qualifiers).length === 0)
    return null;
  return new PackageURL(parsed.type, parsed.namespace, parsed.name, parsed.version, null, parsed.subpath).toString();
}

/** SHA-256 hex of an OCI artifact purl's digest version (`pkg:oci/app@sha256%3A<hex>`), else null. */
export function ociDigest(purl: string | null | undefined): string | null {
  const p = validPurl(purl);
  if (p === null) return null;
  const parsed = PackageURL.fromString(p);
  if (parsed.type !== 'oci' || typeof parsed.version !== 'string') return null;
  const m = /^sha256:([0-9a-f]{64})$/.exec(parsed.version.toLowerCase());
  return m?.[1] ?? null;
}

const BOM_SERIAL = /^urn:uuid:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
/**
 * CycloneDX BOM-Link `urn:cdx:<serial>/<version>#<bom-ref>` to a component of an uploaded SBOM, or
 * null when the SBOM has no (UUID) serial number. The ref is percent-encoded: cyclonedx-go's
 * `ParseBOMLink` (used by Trivy) query-unescapes it, so a literal `%` or `+` in a bom-ref would
 * otherwise come back changed; its pattern also needs the UUID in lower case.
 */
export function bomLink(
  serialNumber: string | null | undefined,
  version: number | null | undefined,
  ref: string,
): string | null {
  const m = BOM_SERIAL.exec(serialNumber?.trim() ?? '');
  if (m?.[1] === undefined || version === null || version === undefined || version < 1) return null;
  return `urn:cdx:${m[1].toLowerCase()}/${version}#${encodeURIComponent(ref)}`;
}

/** `pkg:generic/<name>@<version>` for things that have no purl of their own. */
export function genericPurl(name: string, version: string | null): string {
  return new PackageURL('generic', null, name, version, null, null).toString();
}

/** Plain SHA-256 hex (accepts a `sha256:` prefix), or null. */
export function sha256Hex(value: string): string | null {
  const v = value
    .trim()
    .replace(/^sha-?256:/i, '')
    .toLowerCase();
  return /^[0-9a-f]{64}$/.test(v) ? v : null;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Namespace URL without trailing slashes, for building document IRIs under it. */
export function namespaceBase(namespace: string): string {
  return trimTrailing(namespace, '/');
}

/** "name@version" for human-readable texts. */
export function componentLabel(c: { name: string; version: string | null }): string {
  return c.version === null ? c.name : `${c.name} ${c.version}`;
}
