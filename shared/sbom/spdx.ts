/**
 * SPDX 2.2/2.3 JSON inventory: `packages`, minus the package(s) the document
 * DESCRIBES (documentDescribes, or DESCRIBES / DESCRIBED_BY relationships with
 * the document), which are the subject rather than its contents.
 */
import { ComponentInventory, uniqueStrings } from './inventory';
import { isRecord, readRecords, readString, type JsonRecord } from './json-value';
import type { ParsedSbom, SbomComponent, SbomTool } from './model';
import { parsePurl } from './purl';
import { SbomRejectedError } from './sbom-rejected-error';

export const SUPPORTED_SPDX_VERSIONS = ['SPDX-2.2', 'SPDX-2.3'] as const;

/** SPDX 2.3 spells the category PACKAGE-MANAGER, 2.2 PACKAGE_MANAGER; the referenceType is what matters. */
const CPE_REFERENCE_TYPES = new Set(['cpe23type', 'cpe22type']);

/** Licence fields that state the absence of information rather than a licence. */
const NO_LICENSE = new Set(['NOASSERTION', 'NONE']);

export function extractSpdx(doc: JsonRecord): ParsedSbom {
  const spdxVersion = readString(doc.spdxVersion) ?? '';
  if (!(SUPPORTED_SPDX_VERSIONS as readonly string[]).includes(spdxVersion)) {
    throw new SbomRejectedError(
      `SPDX version ${spdxVersion} is not supported (supported: ${SUPPORTED_SPDX_VERSIONS.join(', ')})`,
    );
  }
  if (!Array.isArray(doc.packages)) throw new SbomRejectedError('SPDX document has no packages array');

  const described = describedIds(doc);
  const inventory = new ComponentInventory();
  let subject: ParsedSbom['subject'] = null;
  // Index over the raw array so synthetic refs stay stable whatever entries are skipped.
  doc.packages.forEach((pkg: unknown, index) => {
    if (!isRecord(pkg)) return;
    const id = readString(pkg.SPDXID);
    if (id !== undefined && described.has(id)) {
      subject ??= toSubject(pkg);
      return;
    }
    const component = toComponent(pkg, id ?? `packages[${index}]`);
    if (component) inventory.add(component);
  });

  const tools = readTools(doc.creationInfo);
  return {
    format: 'SPDX',
    specVersion: spdxVersion.slice('SPDX-'.length),
    toolName: tools.length > 0 ? tools.map((t) => t.name).join(', ') : null,
    tools,
    subject,
    components: inventory.list(),
  };
}

function describedIds(doc: JsonRecord): Set<string> {
  const documentId = readString(doc.SPDXID) ?? 'SPDXRef-DOCUMENT';
  const ids = new Set<string>();
  const describes = Array.isArray(doc.documentDescribes) ? doc.documentDescribes : [];
  for (const id of describes) {
    const value = readString(id);
    if (value !== undefined) ids.add(value);
  }
  for (const rel of readRecords(doc.relationships)) {
    const type = readString(rel.relationshipType)?.toUpperCase();
    const from = readString(rel.spdxElementId);
    const to = readString(rel.relatedSpdxElement);
    if (type === 'DESCRIBES' && from === documentId && to !== undefined) ids.add(to);
    if (type === 'DESCRIBED_BY' && to === documentId && from !== undefined) ids.add(from);
  }
  return ids;
}

function toComponent(pkg: JsonRecord, ref: string): SbomComponent | undefined {
  const refs = readRecords(pkg.externalRefs);
  const rawPurl = refs
    .filter((r) => readString(r.referenceType)?.toLowerCase() === 'purl')
    .map((r) => readString(r.referenceLocator))
    .find((locator) => locator !== undefined && parsePurl(locator) !== undefined);
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
    [readString(pkg.licenseDeclared), readString(pkg.licenseConcluded)].filter((l) => l === undefined || !NO_LICENSE.has(l)),
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
 * polynomially on long digit runs (issue 8, defect 5).
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
