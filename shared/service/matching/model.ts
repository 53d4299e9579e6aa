/** What the matcher reports per SBOM component; the scan job stores findings as vulnerabilities. */
import * as z from 'zod';
import { ECOSYSTEMS } from './ecosystems';

export const matchConfidenceSchema = z.enum(['exact', 'high', 'low']);
export type MatchConfidence = z.infer<typeof matchConfidenceSchema>;

export const findingSchema = z.object({
  componentRef: z.string(),
  advisoryId: z.string(),
  cveId: z.string(),
  /** Other advisories in the corpus for the same vulnerability and package (aliases). */
  relatedAdvisoryIds: z.array(z.string()),
  /**
   * exact: purl mapped to the package, version evaluated with the ecosystem's ordering;
   * high: CPE with corroborating evidence, or a distro package whose release is unknown;
   * low: component name (and version) only.
   */
  confidence: matchConfidenceSchema,
  evidence: z.object({ kind: z.enum(['purl', 'cpe', 'name']), value: z.string() }),
  ecosystem: z.enum(ECOSYSTEMS),
  packageName: z.string(),
  version: z.string(),
  affectedRanges: z.string(),
  fixedVersions: z.array(z.string()),
  /**
   * RustSec's kind (`unsound`, `unmaintained`, `notice`) when every advisory of the finding is an
   * informational notice rather than a vulnerability; null for a vulnerability.
   */
  informational: z.string().nullable(),
});
export type Finding = z.infer<typeof findingSchema>;

/**
 * Why a component is unmatched although it names a package: a version longer than any
 * ecosystem's versions cannot be in an advisory's range, and is not worth ordering.
 */
export const unmatchedReasonSchema = z.enum(['version_too_long']);
export type UnmatchedReason = z.infer<typeof unmatchedReasonSchema>;

export const componentMatchSchema = z.object({
  componentRef: z.string(),
  /** False when the component could not be tied to any ecosystem package (the scan's unmatchedCount). */
  mapped: z.boolean(),
  unmatchedReason: unmatchedReasonSchema.optional(),
  ecosystem: z.enum(ECOSYSTEMS).optional(),
  packageName: z.string().optional(),
  version: z.string().optional(),
  findings: z.array(findingSchema),
  /** Advisories for the package whose ranges could not be evaluated against this version (missing or unorderable). */
  indeterminate: z.array(z.string()),
});
export type ComponentMatch = z.infer<typeof componentMatchSchema>;
