/**
 * Input model of VEX generation: plain data assembled by the VEX service from the
 * release, its SBOMs, the matched vulnerabilities ("findings") and their current
 * dispositions. The generators in `shared/service/vex/formats` are pure functions of it.
 */
import * as z from 'zod';
import { dispositionStatus, justificationValue, responseValue } from '../schemas/dispositions';
import { vexFormat } from '../schemas/vex';

export { vexFormat };
export type { VexFormat } from '../schemas/vex';

export type { DispositionResponse, DispositionStatus, Justification } from '../dispositions/vocabulary';

/** ISO 8601 date-time with an offset or `Z` (every target format requires a zone). */
const isoDateTime = z.iso.datetime({ offset: true });

export const vexCvssSchema = z.object({
  /** Vector string as published (`CVSS:3.1/...`, `CVSS:4.0/...`, v2 with or without `CVSS:2.0/`). */
  vector: z.string().min(1),
  score: z.number().min(0).max(10),
  /** Qualitative severity as stored (any case); re-derived from the score where the version defines it. */
  severity: z.string().nullable(),
});
export type VexCvss = z.infer<typeof vexCvssSchema>;

export const vexDispositionSchema = z.object({
  status: dispositionStatus,
  justification: justificationValue.nullable(),
  response: responseValue.nullable(),
  detail: z.string().max(5000).nullable(),
  actionStatement: z.string().max(5000).nullable(),
  impactStatement: z.string().max(5000).nullable(),
  updatedAt: isoDateTime,
});
export type VexDisposition = z.infer<typeof vexDispositionSchema>;

export const vexFindingSchema = z
  .object({
    /** Vulnerability (finding) uuid. */
    id: z.string().min(1),
    /** `ref` of the matched component (CycloneDX bom-ref or SPDXID). */
    componentRef: z.string().min(1),
    /** CVE id when the advisory has one. */
    cveId: z.string().min(1).nullable(),
    /** Id of the advisory that produced the match (GHSA-…, PYSEC-…, GO-…, OSV id). */
    advisoryId: z.string().min(1).nullable(),
    aliases: z.array(z.string().min(1)),
    summary: z.string().nullable(),
    /** `CWE-79` style ids. */
    cwes: z.array(z.string()),
    cvssV2: vexCvssSchema.nullable(),
    cvssV3: vexCvssSchema.nullable(),
    cvssV4: vexCvssSchema.nullable(),
    epss: z.object({ score: z.number().min(0).max(1), percentile: z.number().min(0).max(1) }).nullable(),
    isKev: z.boolean(),
    fixedVersions: z.array(z.string()),
    /** `null` = not triaged yet, published as under investigation. */
    disposition: vexDispositionSchema.nullable(),
  })
  .refine((f) => f.cveId !== null || f.advisoryId !== null, {
    message: 'a finding needs a cveId or an advisoryId',
    path: ['cveId'],
  });
export type VexFinding = z.infer<typeof vexFindingSchema>;

export const vexComponentSchema = z.object({
  ref: z.string().min(1),
  name: z.string().min(1),
  version: z.string().nullable(),
  purl: z.string().nullable(),
  cpes: z.array(z.string()),
  /** SBOM the component was read from; with that SBOM's serial number its refs become BOM-Links (CycloneDX). */
  sbomId: z.string().min(1).optional(),
});
export type VexComponent = z.infer<typeof vexComponentSchema>;

export const vexRevisionSchema = z.object({
  version: z.number().int().min(1),
  date: isoDateTime,
  summary: z.string().min(1),
});
export type VexRevision = z.infer<typeof vexRevisionSchema>;

export const vexGenerationInputSchema = z.object({
  document: z.object({
    /** VEX document id; stable across regenerations (the `version` changes). */
    id: z.string().min(1).max(200),
    version: z.number().int().min(1),
    author: z.string().max(255).nullable(),
    /** Time of this generation (this version). */
    generatedAt: isoDateTime,
    /** Time version 1 was generated; defaults to `generatedAt`. */
    createdAt: isoDateTime.optional(),
    /** `final` once published, else `draft`. */
    status: z.enum(['draft', 'final']),
    publisherName: z.string().min(1).max(255),
    /** Publisher URL, e.g. `https://vexdesk.example/teams/<teamId>`. */
    publisherNamespace: z.url({ protocol: /^https?$/ }),
    /** Known earlier revisions (CSAF revision history); missing ones are filled in. */
    revisions: z.array(vexRevisionSchema).optional(),
    /** Where the CSAF document is distributed (`document.references[category=self]`, optional test 6.2.11). */
    canonicalUrl: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * CSAF only, set at publication by the team's CSAF provider (docs/csaf-provider.md): the release's
     * tracking id, kept across its publications, this publication's number and the revisions of the
     * earlier ones, and the team's CSAF publisher. Absent: tracking follows the VEX document.
     */
    csafTracking: z
      .object({
        id: z.string().min(1).max(200),
        version: z.number().int().min(1),
        revisions: z.array(vexRevisionSchema),
        publisher: z
          .object({
            category: z.enum(['coordinator', 'discoverer', 'other', 'translator', 'user', 'vendor']),
            name: z.string().min(1),
            namespace: z.url({ protocol: /^https?$/ }),
            contact_details: z.string().min(1).optional(),
            issuing_authority: z.string().min(1).optional(),
          })
          .optional(),
      })
      .optional(),
  }),
  product: z.object({
    id: z.string().min(1),
    name: z.string().min(1),
    vendor: z.string().nullable(),
    slug: z.string().min(1),
  }),
  release: z.object({
    id: z.string().min(1),
    version: z.string().min(1),
    /** purl of the released artifact when known (e.g. `pkg:oci/...`); else a `pkg:generic` one is derived. */
    purl: z.string().nullable().optional(),
  }),
  sboms: z.array(
    z.object({
      id: z.string().min(1),
      format: z.string().min(1),
      specVersion: z.string().nullable(),
      /** SHA-256 hex of the uploaded file (optionally `sha256:`-prefixed). */
      fileHash: z.string().min(1),
      /** CycloneDX `serialNumber` and `version` of the uploaded BOM: the BOM-Link target (`urn:cdx:<serial>/<version>`). */
      serialNumber: z.string().min(1).nullable().optional(),
      bomVersion: z.number().int().min(1).nullable().optional(),
    }),
  ),
  components: z.array(vexComponentSchema),
  findings: z.array(vexFindingSchema),
  /**
   * Official CWE names by id (`CWE-79` -> name). CSAF 2.0 `cwe` needs the exact name
   * (mandatory test 6.1.11), so a CWE without one is only listed in a note.
   */
  cweNames: z.record(z.string(), z.string()).optional(),
});
export type VexGenerationInput = z.infer<typeof vexGenerationInputSchema>;
