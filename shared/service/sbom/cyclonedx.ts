/**
 * CycloneDX 1.2-1.7 inventory (JSON, and XML once cyclonedx-xml.ts has mapped it to the JSON
 * shape): every entry of `metadata.component.components` and of `components`, recursively
 * through nested `components` (assemblies), but not `metadata.component` itself, which is the
 * subject the BOM describes rather than something it contains. The subject's own sub-components
 * are contents: Dependency-Track reads them too (DependencyTrack/dependency-track
 * src/main/java/org/dependencytrack/tasks/BomUploadProcessingTaskV2.java @7529e41b, `processBom`:
 * `convertComponents(cdxBom.getMetadata().getComponent().getComponents())`).
 */
import { ComponentInventory, uniqueStrings } from './inventory';
import { isRecord, readArray, readRecords, readString, type JsonRecord } from './json-value';
import type { ParsedSbom, SbomComponent, SbomEncoding, SbomTool } from './model';
import { normalizeLegacyPurl, parsePurl } from './purl';
import { SbomRejectedError } from './sbom-rejected-error';
import { SkipLog } from './skip-log';

export const SUPPORTED_CYCLONEDX_VERSIONS = ['1.2', '1.3', '1.4', '1.5', '1.6', '1.7'] as const;

/** Guards against hostile nesting; real assemblies are a handful of levels deep. */
const MAX_DEPTH = 64;

export function extractCycloneDx(doc: JsonRecord, encoding: SbomEncoding = 'json'): ParsedSbom {
  const specVersion = readString(doc.specVersion);
  if (specVersion === undefined) throw new SbomRejectedError('CycloneDX document without specVersion');
  if (!(SUPPORTED_CYCLONEDX_VERSIONS as readonly string[]).includes(specVersion)) {
    throw new SbomRejectedError(
      `CycloneDX specVersion ${specVersion} is not supported (supported: ${SUPPORTED_CYCLONEDX_VERSIONS.join(', ')})`,
    );
  }
  if (!Array.isArray(doc.components)) {
    throw new SbomRejectedError('CycloneDX document has no components array');
  }

  const metadata = isRecord(doc.metadata) ? doc.metadata : {};
  const subjectRecord = isRecord(metadata.component) ? metadata.component : undefined;
  const subjectRef = subjectRecord ? readString(subjectRecord['bom-ref']) : undefined;

  const skipped = new SkipLog();
  if (subjectRecord) skipped.add('document_subject', subjectRef ?? 'metadata.component');
  const inventory = new ComponentInventory(skipped);
  // Iterative pre-order walk: parents before their children, document order otherwise
  // (metadata comes before components in every CycloneDX serialisation).
  const stack: { node: unknown; path: string; depth: number }[] = [];
  pushChildren(stack, doc.components, 'components', 0);
  if (subjectRecord) pushChildren(stack, subjectRecord.components, 'metadata.component.components', 0);
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, path, depth } = item;
    if (!isRecord(node)) {
      skipped.add('not_an_object', path);
      continue;
    }
    const component = toComponent(node, path);
    if (!component) skipped.add('no_identity', readString(node['bom-ref']) ?? path);
    // Some tools also list the subject among the components; it is still the subject.
    else if (subjectRef !== undefined && component.ref === subjectRef) skipped.add('document_subject', component.ref);
    else inventory.add(component);
    if (depth < MAX_DEPTH) pushChildren(stack, node.components, `${path}.components`, depth + 1);
    else if (readArray(node.components).length > 0)
      skipped.add('nesting_too_deep', `${path}.components`, readArray(node.components).length);
  }

  const tools = readTools(metadata.tools);
  return {
    format: 'CycloneDX',
    encoding,
    specVersion,
    toolName: tools.length > 0 ? tools.map((t) => t.name).join(', ') : null,
    tools,
    subject: subjectRecord ? toSubject(subjectRecord) : null,
    bomIdentity: bomIdentity(doc),
    components: inventory.list(),
    skipped: skipped.list(),
  };
}

/** serialNumber (urn:uuid, as the schema requires) and version (default 1, as the schema says) of the BOM. */
function bomIdentity(doc: JsonRecord): ParsedSbom['bomIdentity'] {
  const serialNumber = readString(doc.serialNumber)?.trim();
  if (
    serialNumber === undefined ||
    !/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(serialNumber)
  )
    return null;
  const raw = typeof doc.version === 'string' ? Number(doc.version) : doc.version;
  const version = typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 ? raw : 1;
  return { serialNumber, version };
}

function pushChildren(
  stack: { node: unknown; path: string; depth: number }[],
  children: unknown,
  path: string,
  depth: number,
) {
  const list = readArray(children);
  for (let i = list.length - 1; i >= 0; i--) stack.push({ node: list[i], path: `${path}[${i}]`, depth });
}

function toComponent(node: JsonRecord, path: string): SbomComponent | undefined {
  const written = readString(node.purl);
  const rawPurl = written === undefined ? undefined : normalizeLegacyPurl(written);
  const parsedPurl = rawPurl === undefined ? undefined : parsePurl(rawPurl);
  const cpes = uniqueStrings([readString(node.cpe), ...syftCpeProperties(node.properties)]);
  const name = readString(node.name) ?? parsedPurl?.name ?? cpes[0];
  if (name === undefined) return undefined;
  const version = readString(node.version) ?? parsedPurl?.version ?? undefined;
  const group = readString(node.group);
  const type = readString(node.type)?.toLowerCase();
  return {
    ref: readString(node['bom-ref']) ?? path,
    name,
    ...(version !== undefined && { version }),
    ...(parsedPurl && rawPurl !== undefined && { purl: rawPurl }),
    cpes,
    licenses: readLicenses(node.licenses),
    ...(group !== undefined && { group }),
    ...(type !== undefined && { type }),
  };
}

/** syft keeps its additional CPE guesses in properties named `syft:cpe23`. */
function syftCpeProperties(properties: unknown): (string | undefined)[] {
  return readRecords(properties)
    .filter((p) => p.name === 'syft:cpe23')
    .map((p) => readString(p.value));
}

/** `licenses` is a list of `{license: {id|name}}` or `{expression}`; empty `license: {}` objects occur and are skipped. */
function readLicenses(licenses: unknown): string[] {
  return uniqueStrings(
    readRecords(licenses).map((entry) => {
      const license = isRecord(entry.license) ? entry.license : undefined;
      return readString(license?.id) ?? readString(license?.name) ?? readString(entry.expression);
    }),
  );
}

/** 1.2-1.4 `tools` is an array of {vendor,name,version}; 1.5+ is {components, services} (the array form is deprecated but still written). */
function readTools(tools: unknown): SbomTool[] {
  const entries = isRecord(tools)
    ? [...readRecords(tools.components), ...readRecords(tools.services)]
    : readRecords(tools);
  const out: SbomTool[] = [];
  for (const entry of entries) {
    const name = readString(entry.name);
    if (name === undefined) continue;
    const version = readString(entry.version);
    out.push({ name, ...(version !== undefined && { version }) });
  }
  return out;
}

function toSubject(component: JsonRecord): ParsedSbom['subject'] {
  const name = readString(component.name);
  if (name === undefined) return null;
  const version = readString(component.version);
  return { name, ...(version !== undefined && { version }) };
}
