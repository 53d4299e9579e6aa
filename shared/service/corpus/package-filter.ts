/**
 * Which packages the corpus has advisories for, as a Bloom filter, so a scan
 * reads only the package items that can exist (docs/scanning.md "Where scan
 * time goes"): most components of an SBOM have no advisory, and reading their
 * absent items was most of a large scan. A false positive costs one read that
 * finds nothing; there are no false negatives, because the filter only ever
 * gains keys (a package whose advisories were withdrawn stays in it).
 *
 * Stored in the table as immutable versions (two 256 KiB chunks) and a head
 * naming the current one, replaced with a conditional write: two imports that
 * finish together merge instead of one losing the other's keys. A corpus
 * imported before the filter existed has no head, and scans read every
 * candidate package as before.
 */
import { createHash, randomUUID } from 'node:crypto';
import { keys } from '../data/keys';
import { batchGet, batchWrite, transactWrite, TransactionFailedError, tx } from '../data/table-client';

/** 4 Mi bits: under 2% false positives at 500,000 packages (all of OSV), far fewer at bench sizes. */
const BITS = 1 << 22;
const HASHES = 7;
const CHUNKS = 2;
const CHUNK_BYTES = BITS / 8 / CHUNKS;

export class PackageFilter {
  constructor(readonly bits: Uint8Array = new Uint8Array(BITS / 8)) {}

  private *positions(key: string): Generator<number> {
    const digest = createHash('md5').update(key).digest();
    const first = digest.readUInt32LE(0);
    const step = (digest.readUInt32LE(4) | 1) >>> 0; // odd, and unsigned again after the bitwise or
    for (let index = 0; index < HASHES; index += 1) yield (first + index * step) % BITS;
  }

  add(key: string): void {
    for (const position of this.positions(key))
      this.bits[position >> 3] = (this.bits[position >> 3] ?? 0) | (1 << (position & 7));
  }

  mightContain(key: string): boolean {
    for (const position of this.positions(key))
      if (((this.bits[position >> 3] ?? 0) & (1 << (position & 7))) === 0) return false;
    return true;
  }

  merge(other: PackageFilter): void {
    for (let index = 0; index < this.bits.length; index += 1)
      this.bits[index] = (this.bits[index] ?? 0) | (other.bits[index] ?? 0);
  }
}

/** The current filter read by this process, kept while the head names the same version. */
let cached: { version: string; filter: PackageFilter } | undefined;

async function readHead(): Promise<string | undefined> {
  const [head] = await batchGet([keys.corpusPackageFilterHead()]);
  return head ? String(head.version) : undefined;
}

async function readVersion(version: string): Promise<PackageFilter | undefined> {
  const items = await batchGet(
    Array.from({ length: CHUNKS }, (_, chunk) => keys.corpusPackageFilterChunk(version, chunk)),
  );
  // A version replaced and deleted between reading the head and its chunks: no filter this time.
  if (items.length !== CHUNKS) return undefined;
  const filter = new PackageFilter();
  for (const item of items) filter.bits.set(item.bits as Uint8Array, Number(item.chunk) * CHUNK_BYTES);
  return filter;
}

export const packageFilterStore = {
  /** The corpus's filter, or undefined when the corpus has none (scans then read every candidate). */
  async current(): Promise<PackageFilter | undefined> {
    const version = await readHead();
    if (version === undefined) return undefined;
    if (cached?.version === version) return cached.filter;
    const filter = await readVersion(version);
    if (filter) cached = { version, filter };
    return filter;
  },

  /** Whether a corpus has a filter at all (an import only starts one for a corpus it fully wrote). */
  async exists(): Promise<boolean> {
    return (await readHead()) !== undefined;
  },

  /** Adds the keys of `added`: writes a new version holding the current one's keys and these, then moves the head. */
  async add(added: PackageFilter): Promise<void> {
    for (;;) {
      const previous = await readHead();
      const next = new PackageFilter(added.bits.slice());
      if (previous !== undefined) {
        const base = await readVersion(previous);
        if (base) next.merge(base);
      }
      const version = randomUUID();
      await batchWrite(
        Array.from({ length: CHUNKS }, (_, chunk) => ({
          ...keys.corpusPackageFilterChunk(version, chunk),
          entity: 'CorpusPackageFilterChunk',
          version,
          chunk,
          bits: next.bits.slice(chunk * CHUNK_BYTES, (chunk + 1) * CHUNK_BYTES),
        })),
      );
      try {
        await transactWrite([
          tx.put(
            {
              ...keys.corpusPackageFilterHead(),
              entity: 'CorpusPackageFilterHead',
              version,
              updatedAt: new Date().toISOString(),
            },
            previous === undefined ? 'attribute_not_exists(pk)' : '#version = :previous',
            previous === undefined ? undefined : { '#version': 'version' },
            previous === undefined ? undefined : { ':previous': previous },
          ),
        ]);
      } catch (error) {
        if (!(error instanceof TransactionFailedError)) throw error;
        // Another import moved the head meanwhile: drop this version and merge into theirs.
        await batchWrite(
          [],
          Array.from({ length: CHUNKS }, (_, chunk) => keys.corpusPackageFilterChunk(version, chunk)),
        );
        continue;
      }
      // Scans that read the old head a moment ago find its chunks gone and read without a filter once.
      if (previous !== undefined)
        await batchWrite(
          [],
          Array.from({ length: CHUNKS }, (_, chunk) => keys.corpusPackageFilterChunk(previous, chunk)),
        );
      return;
    }
  },
};
