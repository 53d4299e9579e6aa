/**
 * SPDX 2.2/2.3 inventory (JSON, and tag-value once spdx-tag-value.ts has mapped it to the JSON
 * shape): every package, except the one package the document DESCRIBES (documentDescribes, or
 * DESCRIBES / DESCRIBED_BY relationships with the document) when it is the single root of
 * others: that one is the subject (an image, an application) rather than its contents.
 * A document that DESCRIBES each of its packages (a flat list, as sbom4python writes) or several
 * roots keeps every package: Trivy skips DESCRIBES relationships and scans every package no
 * other relationship claimed (aquasecurity/trivy pkg/sbom/spdx/unmarshal.go @cf7fff46,
 * "Skip the DESCRIBES relationship" and the `orphanPkgs` fallback).
 */
import { ComponentInventory, uniqueStrings } from './inventory';
import { isRecord, readRecords, readString, type JsonRecord } from './json-value';
import type { ParsedSbom, SbomComponent, SbomEncoding, SbomTool } from './model';
import { normalizeLegacyPurl, parsePurl } from './purl';
import { SbomRejectedError } from './sbom-rejected-error';
import { SkipLog } from './skip-log';

export const SUPPORTED_SPDX_VERSIONS = ['SPDX-2.2', 'SPDX-2.3'] as const;

/** SPDX 2.3 spells the category PACKAGE-MANAGER, 2.2 PACKAGE_MANAGER; the referenceType is what matters. */
const CPE_REFERENCE_TYPES = new Set(['cpe23type', 'cpe22type']);

/** Licence fields that state the absence of information rather than a licence. */
const NO_LICENSE = new Set(['NOASSERTION', 'NONE']);

export function extractSpdx(doc: JsonRecord, encoding: SbomEncoding = 'json'): ParsedSbom {
  const spdxVersion = readString(doc.spdxVersion) ?? '';
  if (!(SUPPORTED_SPDX_VERSIONS as readonly string[]).includes(spdxVersion)) {
    throw new SbomRejectedError(
      `SPDX version ${spdxVersion} is not supported (supported: ${SUPPORTED_SPDX_VERSIONS.join(', ')})`,
    );
  }
  if (!Array.isArray(doc.packages)) throw new SbomRejectedError('SPDX document has no packages array');

  const subjectId = singleDescribedRoot(doc);
  const skipped = new SkipLog();
  const inventory = new ComponentInventory(skipped);
  let subject: ParsedSbom['subject'] = null;
  // Index over the raw array so synthetic refs stay stable whatever entries are skipped.
  doc.packages.forEach((pkg: unknown, index) => {
    const path = `packages[${index}]`;
    if (!isRecord(pkg)) {
      skipped.add('not_an_object', path);
      return;
    }
    const id = readString(pkg.SPDXID);
    if (id !== undefined && id === subjectId) {
      subject ??= toSubject(pkg);
      skipped.add('document_subject', id);
      return;
    }
    inventory.add(toComponent(pkg, id ?? path));
  });

  const tools = readTools(doc.creationInfo);
  return {
    format: 'SPDX',
    encoding,
    specVersion: spdxVersion.slice('SPDX-'.length),
    toolName: tools.length > 0 ? tools.map((t) => t.name).join(', ') : null,
    tools,
    subject,
    components: inventory.list(),
    skipped: skipped.list(),
  };
}

/**
 * The SPDXID of the package the document DESCRIBES when there is exactly one and some
 * relationship ties it to another package of the document (CONTAINS, DEPENDS_ON, or an inverse
 * such as DEPENDENCY_OF): then it is the root of the others. Otherwise undefined.
 */
function singleDescribedRoot(doc: JsonRecord): string | undefined {
  const documentId = readString(doc.SPDXID) ?? 'SPDXRef-DOCUMENT';
  const described = new Set<string>();
  const describes = Array.isArray(doc.documentDescribes) ? doc.documentDescribes : [];
  for (const id of describes) {
    const value = readString(id);
    if (value !== undefined) described.add(value);
  }
  const links: [string, string][] = [];
  for (const rel of readRecords(doc.relationships)) {
    const type = readString(rel.relationshipType)?.toUpperCase();
    const from = readString(rel.spdxElementId);
    const to = readString(rel.relatedSpdxElement);
    if (from === undefined || to === undefined) continue;
    if (type === 'DESCRIBES' && from === documentId) described.add(to);
    else if (type === 'DESCRIBED_BY' && to === documentId) described.add(from);
    else if (from !== to) links.push([from, to]);
  }
  if (described.size !== 1) return undefined;
  const [root] = described;
  if (root === undefined) return undefined;
  const packageIds = new Set(readRecords(doc.packages).map((pkg) => readString(pkg.SPDXID)));
  const isRootOfOthers = links.some(
    ([from, to]) => (from === root && packageIds.has(to)) || (to === root && packageIds.has(from)),
  );
  return isRootOfOthers ? root : undefined;
}

function toComponent(pkg: JsonRecord, ref: string): SbomComponent {
  const refs = readRecords(pkg.externalRefs);
  const written = refs
    .filter((r) => readString(r.referenceType)?.toLowerCase() === 'purl')
    .map((r) => readString(r.referenceLocator))
    .find((locator) => locator !== undefined && parsePurl(locator) !== undefined);
  const rawPurl = written === undefined ? undefined : normalizeLegacyPurl(written);
  const cpes = uniqueStrings(
    refs
      .filter((r) => CPE_REFERENCE_TYPES.has(readString(r.referenceType)?.toLowerCase() ?? ''))
      .map((r) => readString(r.referenceLocator)),
  );
  const parsedPurl = rawPurl === undefined ? undefined : parsePurl(rawPurl);
  const name = readString(pkg.name) ?? parsedPurl?.name ?? ref;
  const version = readString(pkg.versionInfo) ?? parsedPurl?.version ?? undefined;
  const type = readString(pkg.primaryPackagePurpose)?.toLowerCase();
  const licenses = uniqueStrings(
    [readString(pkg.licenseDeclared), readString(pkg.licenseConcluded)].filter(
      (l) => l === undefined || !NO_LICENSE.has(l),
    ),
  );
  return {
    ref,
    name,
    ...(version !== undefined && { version }),
    ...(rawPurl !== undefined && { purl: rawPurl }),
    cpes,
    licenses,
    ...(type !== undefined && { type }),
  };
}

/** creationInfo.creators entries look like "Tool: syft-0.64.0"; a version is split off when the tool wrote name-version. */
function readTools(creationInfo: unknown): SbomTool[] {
  if (!isRecord(creationInfo) || !Array.isArray(creationInfo.creators)) return [];
  const out: SbomTool[] = [];
  for (const creator of creationInfo.creators) {
    const value = readString(creator);
    if (value === undefined || !/^tool:/i.test(value)) continue;
    const tool = value.slice('tool:'.length).trim();
    const split = splitToolVersion(tool);
    if (split) out.push(split);
    else if (tool !== '') out.push({ name: tool });
  }
  return out;
}

/**
 * "syft-0.64.0" / "cyclonedx-gomod v1.4.0" -> name and version (without the `v`): the version
 * follows the first `-` or whitespace after which only a whitespace-free `v`?digit… word is left. Written as
 * a scan, not as `/^(.*?)[-\s]v?(\d+(?:\.\d+)*\S*)$/`, whose overlapping quantifiers backtrack
 * polynomially on long digit runs.
 */
function splitToolVersion(tool: string): SbomTool | null {
  // The version has no whitespace, so the separator is the last whitespace or a `-` after it.
  let lastSpace = -1;
  for (let i = tool.length - 1; i >= 0; i--) {
    if (/\s/.test(tool[i] ?? '')) {
      lastSpace = i;
      break;
    }
  }
  for (let cut = lastSpace === -1 ? tool.indexOf('-') : lastSpace; cut !== -1; cut = tool.indexOf('-', cut + 1)) {
    const start = tool[cut + 1] === 'v' ? cut + 2 : cut + 1;
    if (/\d/.test(tool[start] ?? '')) {
      const name = tool.slice(0, cut);
      return name === '' || /[\n\r\u2028\u2029]/.test(name) ? null : { name, version: tool.slice(start) };
    }
  }
  return null;
}

function toSubject(pkg: JsonRecord): ParsedSbom['subject'] {
  const name = readString(pkg.name);
  if (name === undefined) return null;
  const version = readString(pkg.versionInfo);
  return { name, ...(version !== undefined && { version }) };
}
