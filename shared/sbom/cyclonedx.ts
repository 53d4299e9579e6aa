/**
 * CycloneDX JSON 1.2-1.6 inventory: every entry of `components`, recursively
 * through nested `components` (assemblies), but not `metadata.component`, which
 * is the subject the BOM describes rather than something it contains.
 */
import { ComponentInventory, uniqueStrings } from './inventory';
import { isRecord, readArray, readRecords, readString, type JsonRecord } from './json-value';
import type { ParsedSbom, SbomComponent, SbomTool } from './model';
import { parsePurl } from './purl';
import { SbomRejectedError } from './sbom-rejected-error';

export const SUPPORTED_CYCLONEDX_VERSIONS = ['1.2', '1.3', '1.4', '1.5', '1.6'] as const;

/** Guards against hostile nesting; real assemblies are a handful of levels deep. */
const MAX_DEPTH = 64;

export function extractCycloneDx(doc: JsonRecord): ParsedSbom {
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

  const inventory = new ComponentInventory();
  // Iterative pre-order walk: parents before their children, document order otherwise.
  const stack: { node: unknown; path: string; depth: number }[] = [];
  pushChildren(stack, doc.components, 'components', 0);
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { node, path, depth } = item;
    if (!isRecord(node)) continue;
    const component = toComponent(node, path);
    // Some tools also list the subject among the components; it is still the subject.
    if (component && !(subjectRef !== undefined && component.ref === subjectRef)) inventory.add(component);
    if (depth < MAX_DEPTH) pushChildren(stack, node.components, `${path}.components`, depth + 1);
  }

  const tools = readTools(metadata.tools);
  return {
    format: 'CycloneDX',
    specVersion,
    toolName: tools.length > 0 ? tools.map((t) => t.name).join(', ') : null,
    tools,
    subject: subjectRecord ? toSubject(subjectRecord) : null,
    components: inventory.list(),
  };
}

function pushChildren(stack: { node: unknown; path: string; depth: number }[], children: unknown, path: string, depth: number) {
  const list = readArray(children);
  for (let i = list.length - 1; i >= 0; i--) stack.push({ node: list[i], path: `${path}[${i}]`, depth });
}

function toComponent(node: JsonRecord, path: string): SbomComponent | undefined {
  const rawPurl = readString(node.purl);
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
  const entries = isRecord(tools) ? [...readRecords(tools.components), ...readRecords(tools.services)] : readRecords(tools);
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
