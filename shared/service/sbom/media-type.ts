import type { SbomEncoding, SbomFormat } from './model';

/**
 * IANA media types of the accepted encodings: application/vnd.cyclonedx+json and +xml
 * (CycloneDX specification, "Media Types"), application/spdx+json and text/spdx (SPDX 2.3,
 * registered with IANA). No format is parsed from the other's encoding; the fallback is never served.
 */
const MEDIA_TYPES: Record<SbomFormat, Partial<Record<SbomEncoding, string>>> = {
  CycloneDX: { json: 'application/vnd.cyclonedx+json', xml: 'application/vnd.cyclonedx+xml' },
  SPDX: { json: 'application/spdx+json', 'tag-value': 'text/spdx' },
};

export function sbomMediaType(sbom: { format: SbomFormat; encoding: SbomEncoding }): string {
  return MEDIA_TYPES[sbom.format][sbom.encoding] ?? 'application/octet-stream';
}

/** Download name when the upload gave none, with the extension of its encoding. */
export function defaultSbomFileName(sbom: { id: string; encoding: SbomEncoding }): string {
  const extension = sbom.encoding === 'json' ? 'json' : sbom.encoding === 'xml' ? 'xml' : 'spdx';
  return `sbom-${sbom.id}.${extension}`;
}
