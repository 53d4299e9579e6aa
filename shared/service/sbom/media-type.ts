import type { SbomEncoding, SbomFormat } from './model';

/**
 * IANA media types of the accepted encodings: application/vnd.cyclonedx+json and +xml
 * (CycloneDX specification, "Media Types"), application/spdx+json and text/spdx (SPDX 2.3,
 * registered with IANA). No format is parsed from the other's encoding; the fallback is never served.
 */
export const SBOM_MEDIA_TYPES = {
  CycloneDX: { json: 'application/vnd.cyclonedx+json', xml: 'application/vnd.cyclonedx+xml' },
  SPDX: { json: 'application/spdx+json', 'tag-value': 'text/spdx' },
} as const satisfies Record<SbomFormat, Partial<Record<SbomEncoding, string>>>;

/** A raw upload body's media types: the SBOM types above and the generic JSON and XML ones clients also send. */
export const RAW_SBOM_MEDIA_TYPES = [
  SBOM_MEDIA_TYPES.CycloneDX.json,
  SBOM_MEDIA_TYPES.SPDX.json,
  'application/json',
  SBOM_MEDIA_TYPES.CycloneDX.xml,
  'application/xml',
  'text/xml',
  SBOM_MEDIA_TYPES.SPDX['tag-value'],
] as const;

export function sbomMediaType(sbom: { format: SbomFormat; encoding: SbomEncoding }): string {
  const byEncoding: Partial<Record<SbomEncoding, string>> = SBOM_MEDIA_TYPES[sbom.format];
  return byEncoding[sbom.encoding] ?? 'application/octet-stream';
}

/** Download name when the upload gave none, with the extension of its encoding. */
export function defaultSbomFileName(sbom: { id: string; encoding: SbomEncoding }): string {
  const extension = sbom.encoding === 'json' ? 'json' : sbom.encoding === 'xml' ? 'xml' : 'spdx';
  return `sbom-${sbom.id}.${extension}`;
}
