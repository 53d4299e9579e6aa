/**
 * A release's findings, read fast (docs/architecture/lists-and-caches.md "Reading a release's findings").
 *
 * Reading finding items from the table costs about 0.15 ms each (2,000 in ~300 ms on the
 * embedded engine), so a 20,000-finding release cannot be listed from the table per
 * request. Each completed scan therefore also writes its findings as one gzipped JSON
 * object beside the SBOM's inventory (the "digest"), stamped with a fresh id; the same
 * transaction that records the scan's result stores that stamp on the SBOM item. A reader
 * that has the SBOM item (it always reads it: listing a release's SBOMs is one query) knows
 * which digest is current:
 * - the process keeps recently read digests in memory, keyed by SBOM and stamp; a matching
 *   stamp is a hit with no further read;
 * - otherwise it reads the object; one whose stamp differs (a rescan overwrote it and has not
 *   committed, or a scan died after writing it) is not used;
 * - without a usable digest (an SBOM scanned before digests existed) it reads the table.
 * Findings change only through a scan, and every scan writes a new stamp, so a stamp match
 * means the findings are exactly those of the last completed scan, in any Lambda.
 * Dispositions are never part of the digest: readers read them fresh.
 */
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip, constants as zlibConstants } from 'node:zlib';
import { getObject, isNoSuchKey, putObject } from '../aws-s3';
import { config } from '../config';
import { keys } from '../data/keys';
import type { Sbom } from '../sboms/sbom-store';
import { findingStore, type Finding } from './finding-store';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

const DIGEST_VERSION = 1;

interface StoredDigest {
  version: number;
  sbomId: string;
  stamp: string;
  /** Sorted by id: the order the table returns an SBOM's findings in. */
  findings: Finding[];
}

/**
 * Findings held in memory per process, summed over cached SBOMs (about 1.5 KB each in the heap:
 * 60,000 is ~90 MB of the 2,048 MB the scans and VEX functions get). Least recently used go first.
 */
export const MAX_CACHED_FINDINGS = 60_000;

interface CacheEntry {
  stamp: string;
  findings: readonly Finding[];
}

const cache = new Map<string, CacheEntry>();
let cachedFindings = 0;

function cacheKey(sbom: Pick<Sbom, 'teamId' | 'id'>): string {
  return `${sbom.teamId}/${sbom.id}`;
}

function remember(sbom: Pick<Sbom, 'teamId' | 'id'>, entry: CacheEntry): void {
  const key = cacheKey(sbom);
  const previous = cache.get(key);
  if (previous) {
    cache.delete(key);
    cachedFindings -= previous.findings.length;
  }
  if (entry.findings.length > MAX_CACHED_FINDINGS) return;
  cache.set(key, entry);
  cachedFindings += entry.findings.length;
  for (const [oldest, held] of cache) {
    if (cachedFindings <= MAX_CACHED_FINDINGS) break;
    cache.delete(oldest);
    cachedFindings -= held.findings.length;
  }
}

function recall(sbom: Pick<Sbom, 'teamId' | 'id'>, stamp: string): readonly Finding[] | undefined {
  const key = cacheKey(sbom);
  const entry = cache.get(key);
  if (!entry || entry.stamp !== stamp) return undefined;
  cache.delete(key); // re-inserted last: the Map's order is the LRU order
  cache.set(key, entry);
  return entry.findings;
}

/** Shared between requests: nobody may change them. */
function frozen(findings: Finding[]): readonly Finding[] {
  for (const finding of findings) Object.freeze(finding);
  return Object.freeze(findings);
}

function byId(a: Finding, b: Finding): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function objectKey(sbom: Sbom): string {
  return keys.sbomFindingsObject(sbom.teamId, sbom.productId, sbom.releaseId, sbom.id);
}

async function readStored(sbom: Sbom): Promise<StoredDigest | undefined> {
  try {
    const object = await getObject({ Bucket: config().sbomBucket, Key: objectKey(sbom) });
    const bytes = Buffer.from(await object.Body!.transformToByteArray()); // GetObject always has a Body on success
    const stored = JSON.parse((await gunzipAsync(bytes)).toString('utf8')) as StoredDigest;
    return stored.version === DIGEST_VERSION && stored.sbomId === sbom.id ? stored : undefined;
  } catch (error) {
    if (isNoSuchKey(error)) return undefined;
    throw error;
  }
}

export const findingsDigest = {
  /** A new stamp for a scan's digest. */
  newStamp(): string {
    return randomUUID();
  },

  /**
   * Writes a scan's findings under `stamp`. Called before the transaction that records the
   * scan's result (with the stamp): until that commits, the stamp is nobody's and readers skip it.
   */
  async write(sbom: Sbom, stamp: string, findings: Finding[]): Promise<void> {
    const stored: StoredDigest = {
      version: DIGEST_VERSION,
      sbomId: sbom.id,
      stamp,
      findings: [...findings].sort(byId),
    };
    // Level 1: a 20,000-finding digest compresses in tens of milliseconds instead of hundreds, at ~15% more bytes.
    const body = await gzipAsync(JSON.stringify(stored), { level: zlibConstants.Z_BEST_SPEED });
    await putObject({
      Bucket: config().sbomBucket,
      Key: objectKey(sbom),
      Body: body,
      ContentType: 'application/json',
      ContentEncoding: 'gzip',
    });
  },

  /** The scan that wrote `stamp` committed: this process already holds its findings. */
  committed(sbom: Sbom, stamp: string, findings: Finding[]): void {
    remember(sbom, { stamp, findings: frozen([...findings].sort(byId)) });
  },

  /**
   * The findings of the SBOM's last completed scan (sorted by id), from memory, the digest or
   * the table. The array and its findings are shared between requests: read only.
   */
  async read(sbom: Sbom): Promise<readonly Finding[]> {
    return (await this.load(sbom)).findings;
  },

  /**
   * `read`, saying whether the findings are the digest of the SBOM item's stamp: only those are
   * fixed for as long as the stamp is current (what the table holds can change under a stamp
   * while a rescan writes), so only those may be kept by stamp.
   */
  async load(sbom: Sbom): Promise<{ findings: readonly Finding[]; stamped: boolean }> {
    const stamp = sbom.findingsDigest;
    if (stamp !== undefined) {
      const held = recall(sbom, stamp);
      if (held) return { findings: held, stamped: true };
      const stored = await readStored(sbom);
      if (stored?.stamp === stamp) {
        const findings = frozen(stored.findings);
        remember(sbom, { stamp, findings });
        return { findings, stamped: true };
      }
    }
    return {
      findings: await findingStore.listBySbom(sbom.teamId, sbom.productId, sbom.releaseId, sbom.id),
      stamped: false,
    };
  },

  /** Forgets everything held in memory (tests and benches measure the read from S3 with it). */
  clearCache(): void {
    cache.clear();
    cachedFindings = 0;
  },
};
