/** Keys of the vulnerability corpus (global, not team data). */
import type { Key } from './partitions';

export const corpusKeys = {
  corpusPackage: (ecosystem: string, normalizedName: string): Key => ({
    pk: `CORPUS#PKG#${ecosystem}#${normalizedName}`,
    sk: 'PKG',
  }),
  /**
   * A sealed segment of a package's entries (shared/service/corpus/package-segments.ts): written once when the
   * package item outgrows its bound, rewritten only to drop a revised or withdrawn record's entry.
   */
  corpusPackageSegment: (ecosystem: string, normalizedName: string, segment: number): Key => ({
    pk: `CORPUS#PKG#${ecosystem}#${normalizedName}`,
    sk: `SEG#${segment}`,
  }),
  corpusAdvisory: (advisoryId: string): Key => ({ pk: `CORPUS#ADV#${advisoryId}`, sk: 'ADV' }),
  /** Package keys sharing a short name (CPE product, bare component name) → the corpus packages to fetch. */
  corpusShortName: (shortName: string): Key => ({ pk: `CORPUS#SHORT#${shortName}`, sk: 'SHORT' }),
  /** The scores of every record whose aliases name this identifier (shared/service/corpus/alias-severity.ts). */
  corpusAlias: (identifier: string): Key => ({ pk: `CORPUS#ALIAS#${identifier}`, sk: 'ALIAS' }),
  /** One item per (CVE, advisory naming it): a KEV or score change of a CVE finds the packages to re-evaluate. */
  corpusCveAdvisory: (cveId: string, advisoryId: string): Key => ({
    pk: `CORPUS#CVE#${cveId}`,
    sk: `ADV#${advisoryId}`,
  }),
  corpusCveAdvisoryPrefix: (cveId: string) => ({ pk: `CORPUS#CVE#${cveId}`, skPrefix: 'ADV#' }),
  corpusKev: (cveId: string): Key => ({ pk: `CORPUS#KEV#${cveId}`, sk: 'KEV' }),
  /**
   * A CVE's EPSS score in the layout before buckets: no longer written; read only for a CVE whose bucket is
   * absent while the EPSS import record names no bucket layout (a store not yet re-imported since).
   */
  corpusEpss: (cveId: string): Key => ({ pk: `CORPUS#EPSS#${cveId}`, sk: 'EPSS' }),
  /**
   * One of 4,096 buckets of EPSS scores (shared/service/corpus/epss-buckets.ts). A CVE's bucket is FNV-1a
   * (32-bit) of its id's characters modulo 4,096: changing the hash or the count moves every CVE, so it goes with
   * a new layout name there (the next import then rewrites every bucket).
   */
  corpusEpssBucket: (bucket: number): Key => ({ pk: `CORPUS#EPSS#BUCKET#${bucket}`, sk: 'BUCKET' }),
  /** The corpus package filter (shared/service/corpus/package-filter.ts): a head naming the current version, and that version's chunks. */
  corpusPackageFilterHead: (): Key => ({ pk: 'CORPUS#FILTER', sk: 'HEAD' }),
  corpusPackageFilterChunk: (version: string, chunk: number): Key => ({
    pk: 'CORPUS#FILTER',
    sk: `V#${version}#${chunk}`,
  }),
  /** One completion record per corpus source (osv, kev, epss), written only when that source's import finished. */
  corpusSourceImport: (source: string): Key => ({ pk: 'CORPUS#META', sk: `SOURCE#${source}` }),
  /**
   * Corpus changes not yet applied to the watched SBOMs (shared/service/watch/corpus-changes.ts), oldest
   * first; an applied change's items are deleted. Few at a time: one per import chunk, consumed within minutes.
   */
  corpusChange: (changeId: string, part: number): Key => ({ pk: 'CORPUS#CHANGES', sk: `${changeId}#${part}` }),
  corpusChangePartition: () => ({ pk: 'CORPUS#CHANGES' }),
  /** The latest recorded corpus change: the corpus version a scan's findings reflect. */
  corpusVersion: (): Key => ({ pk: 'CORPUS#META', sk: 'VERSION' }),
  /**
   * What the scheduled refresh knows of one feed (shared/service/corpus/feed-state.ts): `osv` per ecosystem, `kev`,
   * `epss`. One partition: the status endpoint reads them all in one batch.
   */
  corpusFeedState: (source: string, ecosystem?: string): Key => ({
    pk: 'CORPUS#FEEDS',
    sk: ecosystem === undefined ? `FEED#${source}` : `FEED#${source}#${ecosystem}`,
  }),
  corpusSpillObject: (kind: 'package', id: string) => `corpus/${kind}/${encodeURIComponent(id)}.json`,
  /**
   * The staged copy of an ecosystem's all.zip while the refresh imports it in units (shared/service/corpus/
   * osv-archive-refresh.ts): read by range, replaced by the next whole-archive refresh of that ecosystem.
   */
  corpusArchiveObject: (ecosystem: string) => `corpus/archive/${encodeURIComponent(ecosystem)}/all.zip`,
  /**
   * The bucket fingerprints of the last complete import of one OSV archive (shared/service/corpus/
   * archive-fingerprints.ts), a few items holding many buckets each; `scope` names the archive (its
   * staged object key, or the file an admin imported).
   */
  corpusArchiveFingerprints: (scope: string, part: number): Key => ({
    pk: `CORPUS#ARCHIVE#${scope}`,
    sk: `FP#${part}`,
  }),
  /** Held by the run refreshing one feed (scheduled or continuation) so that two never import it at once. */
  corpusFeedLease: (feed: string): Key => ({ pk: 'CORPUS#FEEDS', sk: `LEASE#${feed}` }),
} as const;
