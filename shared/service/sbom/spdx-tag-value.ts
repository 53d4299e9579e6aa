/**
 * SPDX 2.2/2.3 tag-value, mapped onto the SPDX JSON shape so one extractor (spdx.ts) applies the
 * same inventory rules to both encodings. No maintained npm package parses tag-value (the npm
 * `spdx*` packages read licence expressions only), so this is a small strict reader of the
 * syntax (SPDX 2.3 spec, annex "Tag-value format"): `Tag: value` lines, multi-line values in
 * `<text>…</text>`, `#` comments, blank lines. A line that is none of these, or an unclosed
 * `<text>`, rejects the document with its line number. Tags it does not need are ignored.
 *
 * Sections follow the spec's order: document creation info, then each package starts at
 * `PackageName`; a `FileName`, `SnippetSPDXID` or `LicenseID` section ends the current package
 * (its `SPDXID` belongs to the file, snippet or licence).
 */
import type { JsonRecord } from './json-value';
import { SbomRejectedError } from './sbom-rejected-error';

/** Package tags and the SPDX JSON field each one becomes. */
const PACKAGE_FIELDS: Record<string, string> = {
  SPDXID: 'SPDXID',
  PackageVersion: 'versionInfo',
  PackageLicenseDeclared: 'licenseDeclared',
  PackageLicenseConcluded: 'licenseConcluded',
  PrimaryPackagePurpose: 'primaryPackagePurpose',
};

const OTHER_SECTIONS = new Set(['FileName', 'SnippetSPDXID', 'LicenseID']);

export function looksLikeSpdxTagValue(text: string): boolean {
  // The first tag of an SPDX 2.x tag-value document is SPDXVersion (spec clause 6.1); comments may precede it.
  for (const line of text.split('\n', 200)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    return trimmed.startsWith('SPDXVersion:');
  }
  return false;
}

interface TagLine {
  tag: string;
  value: string;
  line: number;
}

/** Splits the document into tag/value pairs, joining `<text>` blocks. */
function* tagLines(text: string): Generator<TagLine> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? '').replace(/\r$/, '');
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const colon = raw.indexOf(':');
    const tag = colon === -1 ? '' : raw.slice(0, colon).trim();
    if (!isTag(tag)) throw new SbomRejectedError(`SPDX tag-value line ${i + 1} is not "Tag: value"`);
    let value = raw.slice(colon + 1).trim();
    const start = i;
    if (value.startsWith('<text>')) {
      // Each line is searched once: a long block costs linear time.
      const body = [value.slice('<text>'.length)];
      while (!(body[body.length - 1] ?? '').includes('</text>')) {
        i += 1;
        if (i >= lines.length) throw new SbomRejectedError(`SPDX tag-value line ${start + 1}: <text> is never closed`);
        body.push((lines[i] ?? '').replace(/\r$/, ''));
      }
      const last = body.pop() ?? '';
      body.push(last.slice(0, last.indexOf('</text>')));
      value = body.join('\n');
    }
    yield { tag, value, line: start + 1 };
  }
}

function isTag(tag: string): boolean {
  if (tag === '') return false;
  for (const char of tag) if (!/[\w.-]/.test(char)) return false;
  return true;
}

/** Parses SPDX tag-value into the SPDX JSON document shape (`spdxVersion`, `packages`, `relationships`…). */
export function spdxTagValueToJson(text: string): JsonRecord {
  const packages: JsonRecord[] = [];
  const relationships: JsonRecord[] = [];
  const creators: string[] = [];
  const doc: JsonRecord = { packages, relationships, creationInfo: { creators } };
  let current: JsonRecord | undefined;
  let inOtherSection = false;

  for (const { tag, value, line } of tagLines(text)) {
    if (tag === 'PackageName') {
      current = { name: value };
      packages.push(current);
      inOtherSection = false;
    } else if (OTHER_SECTIONS.has(tag)) {
      current = undefined;
      inOtherSection = true;
    } else if (current) {
      readPackageTag(current, tag, value, line);
    } else if (!inOtherSection) {
      if (tag === 'SPDXVersion') doc.spdxVersion = value;
      else if (tag === 'SPDXID') doc.SPDXID = value;
      else if (tag === 'DocumentName') doc.name = value;
      else if (tag === 'Creator') creators.push(value);
    }
    // Relationships may appear anywhere after the creation info (spec clause 11).
    if (tag === 'Relationship') relationships.push(readRelationship(value, line));
  }
  if (doc.spdxVersion === undefined) throw new SbomRejectedError('SPDX tag-value document without SPDXVersion');
  return doc;
}

function readPackageTag(pkg: JsonRecord, tag: string, value: string, line: number): void {
  if (tag === 'ExternalRef') {
    const [category, type, ...locator] = value.split(/\s+/);
    if (category === undefined || type === undefined || locator.length === 0) {
      throw new SbomRejectedError(`SPDX tag-value line ${line}: ExternalRef needs "category type locator"`);
    }
    const refs = (pkg.externalRefs ??= []) as JsonRecord[];
    refs.push({ referenceCategory: category, referenceType: type, referenceLocator: locator.join(' ') });
    return;
  }
  const field = PACKAGE_FIELDS[tag];
  if (field === undefined) return;
  if (pkg[field] !== undefined)
    throw new SbomRejectedError(`SPDX tag-value line ${line}: ${tag} given twice for package ${String(pkg.name)}`);
  pkg[field] = value;
}

function readRelationship(value: string, line: number): JsonRecord {
  const parts = value.split(/\s+/);
  if (parts.length !== 3)
    throw new SbomRejectedError(`SPDX tag-value line ${line}: Relationship needs "element TYPE element"`);
  const [spdxElementId, relationshipType, relatedSpdxElement] = parts;
  return { spdxElementId, relationshipType, relatedSpdxElement };
}
