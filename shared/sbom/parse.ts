/**
 * Entry point of SBOM upload: detects CycloneDX or SPDX from the content (spec
 * "SBOMs and scanning": "The format (CycloneDX or SPDX) is detected from the
 * content") and extracts the component inventory the scan matches.
 */
import { extractCycloneDx } from './cyclonedx';
import { isRecord } from './json-value';
import type { ParsedSbom } from './model';
import { SbomRejectedError } from './sbom-rejected-error';
import { extractSpdx } from './spdx';

export function parseSbom(bytes: Buffer | string): ParsedSbom {
  const text = (typeof bytes === 'string' ? bytes : bytes.toString('utf8')).replace(/^\uFEFF/, '');
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
    'not a supported SBOM format: expected CycloneDX JSON (bomFormat "CycloneDX") or SPDX JSON (spdxVersion "SPDX-2.x")',
  );
}
