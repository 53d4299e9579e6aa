/**
 * Entry point of SBOM upload: detects the format from the content (spec "SBOMs and scanning":
 * "The format (CycloneDX or SPDX) is detected from the content") and extracts the component
 * inventory the scan matches. Accepted: CycloneDX 1.2-1.7 JSON or XML, SPDX 2.2/2.3 JSON or
 * tag-value. The file name is only a hint for the error message: content decides.
 */
import { extractCycloneDx } from './cyclonedx';
import { cycloneDxXmlToJson, looksLikeXml } from './cyclonedx-xml';
import { isRecord } from './json-value';
import type { ParsedSbom } from './model';
import { SbomRejectedError } from './sbom-rejected-error';
import { extractSpdx } from './spdx';
import { looksLikeSpdxTagValue, spdxTagValueToJson } from './spdx-tag-value';

export const ACCEPTED_FORMATS = 'CycloneDX 1.2-1.7 (JSON or XML), SPDX 2.2/2.3 (JSON or tag-value)';

export function parseSbom(bytes: Buffer | string, fileName?: string | null): ParsedSbom {
  const text = (typeof bytes === 'string' ? bytes : bytes.toString('utf8')).replace(/^\uFEFF/, '');
  const start = text.trimStart()[0];
  if (start === '{' || start === '[') return parseJson(text);
  if (looksLikeXml(text)) return extractCycloneDx(cycloneDxXmlToJson(text), 'xml');
  // A tag-value file whose first tag is not SPDXVersion: with a tag-value name, the parser's own
  // message (which line is wrong, what is missing) says more than "unsupported format".
  if (looksLikeSpdxTagValue(text) || (fileName != null && /\.(?:spdx|tv|tag)$/i.test(fileName))) {
    return extractSpdx(spdxTagValueToJson(text), 'tag-value');
  }
  // JSON that is not an object (`null`, `42`, `"x"`) gets the JSON answer.
  if (parsesAsJson(text)) return parseJson(text);
  const hint = fileName ? ` (file name "${fileName.slice(0, 100)}")` : '';
  throw new SbomRejectedError(`not a supported SBOM format${hint}: accepted are ${ACCEPTED_FORMATS}`);
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function parseJson(text: string): ParsedSbom {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new SbomRejectedError(`not valid JSON (${error instanceof Error ? error.message : 'parse error'})`);
  }
  if (!isRecord(doc)) throw new SbomRejectedError('the document is not a JSON object');

  if (typeof doc.bomFormat === 'string' && doc.bomFormat.toLowerCase() === 'cyclonedx') return extractCycloneDx(doc);
  if (typeof doc.spdxVersion === 'string') return extractSpdx(doc);
  if ('@context' in doc && JSON.stringify(doc['@context']).includes('spdx')) {
    throw new SbomRejectedError('SPDX 3 JSON-LD is not supported (supported: SPDX 2.2, 2.3 JSON)');
  }
  throw new SbomRejectedError(
    `not a supported SBOM format: expected CycloneDX JSON (bomFormat "CycloneDX") or SPDX JSON (spdxVersion "SPDX-2.x"); accepted are ${ACCEPTED_FORMATS}`,
  );
}
