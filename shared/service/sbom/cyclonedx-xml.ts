/**
 * CycloneDX XML 1.2-1.7: parsed with fast-xml-parser and mapped onto the JSON shape, so one
 * extractor (cyclonedx.ts) applies the same inventory rules to both encodings. The version is
 * the bom namespace (`http://cyclonedx.org/schema/bom/1.x`), as the XSDs define it.
 *
 * Safety: CycloneDX has no DTD, so any DOCTYPE or ENTITY declaration is refused before parsing
 * (no entity expansion, no external entity can ever be read); the only entities decoded are
 * XML's five predefined ones and character references, in one pass. Nesting is capped by the
 * parser (`maxNestedTags`), so the recursive mapping below is bounded too.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { isRecord, readString, type JsonRecord } from './json-value';
import { SbomRejectedError } from './sbom-rejected-error';

/** 100 tags deep is about 48 levels of assemblies (`components/component` per level); real BOMs use a handful. */
const MAX_NESTED_TAGS = 100;

/** Elements that repeat in the XSD; the parser makes them arrays even when there is one. */
const REPEATED = new Set(['component', 'tool', 'service', 'license', 'expression', 'property']);

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(
    /&(?:#(\d{1,7})|#x([\da-f]{1,6})|(amp|lt|gt|quot|apos));/gi,
    (match, decimal?: string, hex?: string, name?: string) => {
      if (name !== undefined) return PREDEFINED[name.toLowerCase()] ?? match;
      const codePoint = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
      // Beyond Unicode or a lone surrogate: left as written rather than thrown on.
      return codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)
        ? match
        : String.fromCodePoint(codePoint);
    },
  );
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Local names: a document may bind the CycloneDX namespace to a prefix (`<cdx:bom>`).
  transformTagName: (name) => name.slice(name.indexOf(':') + 1),
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  entityDecoder: {
    decode: decodeEntities,
    setExternalEntities: () => undefined,
    addInputEntities: () => undefined,
    reset: () => undefined,
    setXmlVersion: () => undefined,
  },
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: MAX_NESTED_TAGS,
  isArray: (name) => REPEATED.has(name),
});

const BOM_NAMESPACE = 'http://cyclonedx.org/schema/bom/';

export function looksLikeXml(text: string): boolean {
  return text.trimStart().startsWith('<');
}

/** Parses CycloneDX XML into the JSON document shape (`bomFormat`, `specVersion`, `metadata`, `components`). */
export function cycloneDxXmlToJson(text: string): JsonRecord {
  // The markup declarations of a DTD; CycloneDX documents never carry one.
  if (text.includes('<!DOCTYPE') || text.includes('<!ENTITY')) {
    throw new SbomRejectedError('XML with a DOCTYPE or ENTITY declaration is not accepted (CycloneDX XML has no DTD)');
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new SbomRejectedError(`not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  let tree: unknown;
  try {
    tree = parser.parse(text);
  } catch (error) {
    throw new SbomRejectedError(`unreadable XML (${error instanceof Error ? error.message : 'parse error'})`);
  }
  const bom = isRecord(tree) ? tree.bom : undefined;
  if (!isRecord(bom)) {
    throw new SbomRejectedError(
      'XML document is not a CycloneDX BOM (root element <bom> in the http://cyclonedx.org/schema/bom/1.x namespace)',
    );
  }
  const namespace = Object.entries(bom).find(
    ([key, value]) =>
      (key === 'xmlns' || key.startsWith('xmlns:')) && typeof value === 'string' && value.startsWith(BOM_NAMESPACE),
  );
  if (!namespace)
    throw new SbomRejectedError('CycloneDX XML without the http://cyclonedx.org/schema/bom/1.x namespace');
  const specVersion = String(namespace[1]).slice(BOM_NAMESPACE.length);

  const doc: JsonRecord = { bomFormat: 'CycloneDX', specVersion };
  // Root attributes <bom serialNumber="urn:uuid:..." version="1">, as the JSON form has them.
  if (typeof bom.serialNumber === 'string') doc.serialNumber = bom.serialNumber;
  if (typeof bom.version === 'string' || typeof bom.version === 'number') doc.version = bom.version;
  // <components/> is an empty list; no element at all is "no components array", as in JSON.
  if ('components' in bom) doc.components = children(bom.components, 'component').map(toComponent);
  if (isRecord(bom.metadata)) doc.metadata = toMetadata(bom.metadata);
  return doc;
}

function children(container: unknown, name: string): unknown[] {
  if (!isRecord(container)) return [];
  const list = container[name];
  return Array.isArray(list) ? list : [];
}

/** Element text: a plain string, or `#text` when the element also has attributes. */
function text(value: unknown): string | undefined {
  if (isRecord(value)) return readString(value['#text']);
  return readString(value);
}

function toComponent(node: unknown): unknown {
  if (!isRecord(node)) return node;
  const component: JsonRecord = {};
  for (const field of ['bom-ref', 'type']) if (typeof node[field] === 'string') component[field] = node[field];
  for (const field of ['name', 'version', 'group', 'purl', 'cpe']) {
    const value = text(node[field]);
    if (value !== undefined) component[field] = value;
  }
  if (isRecord(node.licenses)) {
    component.licenses = [
      ...children(node.licenses, 'license')
        .filter(isRecord)
        .map((license) => ({ license: { id: text(license.id), name: text(license.name) } })),
      ...children(node.licenses, 'expression').map((expression) => ({ expression: text(expression) })),
    ];
  }
  if (isRecord(node.properties)) {
    component.properties = children(node.properties, 'property')
      .filter(isRecord)
      .map((property) => ({ name: property.name, value: text(property) }));
  }
  if ('components' in node) component.components = children(node.components, 'component').map(toComponent);
  return component;
}

function toMetadata(metadata: JsonRecord): JsonRecord {
  const out: JsonRecord = {};
  const subject = children(metadata, 'component')[0];
  if (subject !== undefined) out.component = toComponent(subject);
  if (isRecord(metadata.tools)) {
    const legacy = children(metadata.tools, 'tool');
    // 1.2-1.4 list <tool> elements; 1.5+ wrap components and services.
    out.tools =
      legacy.length > 0
        ? legacy.map(toComponent)
        : {
            components: children(metadata.tools.components, 'component').map(toComponent),
            services: children(metadata.tools.services, 'service').map(toComponent),
          };
  }
  return out;
}
