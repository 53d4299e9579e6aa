/**
 * The normalised advisory the corpus stores and the matcher reads: one OSV record
 * reduced to what a scan needs (identifiers, scores, CWEs and the affected
 * package ranges). GIT ranges are dropped: commit graphs cannot be evaluated
 * against SBOM versions.
 */
import * as z from 'zod';

export const severityLevelSchema = z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'NONE']);
export type SeverityLevel = z.infer<typeof severityLevelSchema>;

export const cvssScoreSchema = z.object({
  vector: z.string(),
  score: z.number().min(0).max(10),
  severity: severityLevelSchema,
});
export type CvssScore = z.infer<typeof cvssScoreSchema>;

export const rangeEventSchema = z.object({
  kind: z.enum(['introduced', 'fixed', 'last_affected', 'limit']),
  version: z.string(),
});
export type RangeEvent = z.infer<typeof rangeEventSchema>;

export const versionRangeSchema = z.object({
  type: z.enum(['SEMVER', 'ECOSYSTEM']),
  events: z.array(rangeEventSchema),
});
export type VersionRange = z.infer<typeof versionRangeSchema>;

export const affectedPackageSchema = z.object({
  /** OSV ecosystem string as published, e.g. `PyPI`, `Maven`, `Debian:11`. */
  ecosystem: z.string(),
  /** Package name as published; index keys normalise it per ecosystem. */
  name: z.string(),
  ranges: z.array(versionRangeSchema),
  versions: z.array(z.string()),
});
export type AffectedPackage = z.infer<typeof affectedPackageSchema>;

export const advisoryReferenceSchema = z.object({ type: z.string(), url: z.string() });

export const advisorySchema = z.object({
  id: z.string().min(1),
  modified: z.string(),
  published: z.string().nullable(),
  /** Set when the source withdrew the record; importers drop these. */
  withdrawn: z.string().nullable(),
  /** The CVE the service reports (spec "Vulnerability": cve_id); the advisory id when no CVE is known. */
  cveId: z.string(),
  aliases: z.array(z.string()),
  summary: z.string(),
  details: z.string(),
  cwes: z.array(z.string()),
  cvssV2: cvssScoreSchema.nullable(),
  cvssV3: cvssScoreSchema.nullable(),
  cvssV4: cvssScoreSchema.nullable(),
  /** The database's own rating (GHSA database_specific.severity; MODERATE is mapped to MEDIUM). */
  databaseSeverity: severityLevelSchema.nullable(),
  /** RustSec notices that are not vulnerabilities (`unmaintained`, `unsound`, `notice`); scans report them marked as such. */
  informational: z.string().nullable(),
  affected: z.array(affectedPackageSchema),
  references: z.array(advisoryReferenceSchema),
});
export type Advisory = z.infer<typeof advisorySchema>;
