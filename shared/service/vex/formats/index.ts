/**
 * Pure VEX document generation (no AWS, no I/O): the same prepared statements rendered as
 * CycloneDX 1.6 VEX, OpenVEX v0.2.0 or CSAF 2.0 csaf_vex. See docs/vex-mapping.md.
 */
import type { VexFormat, VexGenerationInput } from '../model';
import { generateCsafFromPrepared } from './csaf';
import type { CsafVexDocument } from './csaf-types';
import { generateCycloneDxVexFromPrepared, type CycloneDxVexDocument } from './cyclonedx';
import { generateOpenVexFromPrepared, type OpenVexDocument } from './openvex';
import { prepareVex } from './prepare';

export { generateCycloneDxVex, CYCLONEDX_SPEC_VERSION, cyclonedxSerialNumber, cyclonedxReleaseRef } from './cyclonedx';
export type { CycloneDxVexDocument, CdxVulnerability, CdxComponent } from './cyclonedx';
export { generateOpenVex, OPENVEX_CONTEXT, openVexDocumentId, releasePurl } from './openvex';
export type { OpenVexDocument, OpenVexStatement } from './openvex';
export { generateCsaf } from './csaf';
export { csafReleaseProductId, csafComponentProductId, csafComponentInReleaseProductId } from './csaf-product-tree';
export type { CsafVexDocument, CsafVulnerability } from './csaf-types';
export { serializeVex, canonicalize } from './serialize';
export { VexGenerationError, type VexGenerationErrorCode } from './errors';
export { GENERATOR_NAME, GENERATOR_VERSION } from './util';
export * from './mapping';

export type VexDocument = CycloneDxVexDocument | OpenVexDocument | CsafVexDocument;
export interface VexDocumentByFormat {
  cyclonedx_vex: CycloneDxVexDocument;
  openvex: OpenVexDocument;
  csaf: CsafVexDocument;
}

/** Generates `format` from `input`; throws VexGenerationError (422) on invalid or unrepresentable input. */
export function generateVex<F extends VexFormat>(format: F, input: VexGenerationInput): VexDocumentByFormat[F];
export function generateVex(format: VexFormat, input: VexGenerationInput): VexDocument {
  const prepared = prepareVex(input);
  switch (format) {
    case 'cyclonedx_vex':
      return generateCycloneDxVexFromPrepared(prepared);
    case 'openvex':
      return generateOpenVexFromPrepared(prepared);
    case 'csaf':
      return generateCsafFromPrepared(prepared);
  }
}

/**
 * Content-Type of the raw document. Only CycloneDX has a registered type
 * (IANA `application/vnd.cyclonedx+json`); neither the OpenVEX v0.2.0 nor the CSAF 2.0
 * specification registers one, so both are served as plain JSON (docs/vex-mapping.md).
 */
export function vexMediaType(format: VexFormat): string {
  switch (format) {
    case 'cyclonedx_vex':
      return 'application/vnd.cyclonedx+json';
    case 'openvex':
      return 'application/json';
    case 'csaf':
      return 'application/json';
  }
}

/** Conventional file name for downloads (`.cdx.json`, `.openvex.json`, CSAF's lowercase `<tracking id>.json`). */
export function vexFileName(format: VexFormat, documentId: string, version: number): string {
  const base = documentId.toLowerCase().replace(/[^+\-a-z0-9]+/g, '_');
  switch (format) {
    case 'cyclonedx_vex':
      return `${base}-v${version}.cdx.json`;
    case 'openvex':
      return `${base}-v${version}.openvex.json`;
    case 'csaf':
      return `${base}.json`;
  }
}
