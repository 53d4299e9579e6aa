/**
 * Reads a zip's entries one at a time by random access, from a file or an S3 object read by range:
 * the central directory (at the end) says where each entry is, so reading can start at any entry
 * index (an import resumes there) and memory holds one read window, never the archive. Entries are
 * inflated by node's zlib and checked against their CRC-32. ZIP64 end records (an archive of more
 * than 65,535 entries, as OSV's exporter writes them) are read; entry sizes over 4 GiB are not.
 */
import { open } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';

/** Bytes at `offset`; fewer only at the end of the source. */
export interface RandomAccessSource {
  size: number;
  read(offset: number, length: number): Promise<Buffer>;
  close?(): Promise<void>;
}

export class ZipFormatError extends Error {
  constructor(message: string) {
    super(`not a readable zip archive: ${message}`);
    this.name = 'ZipFormatError';
  }
}

export interface ZipEntry {
  /** Position in the central directory, from 0: the resume cursor. */
  index: number;
  name: string;
  bytes: Uint8Array;
}

interface CentralEntry {
  index: number;
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const END = 0x06054b50;
const END64 = 0x06064b50;
const LOCATOR64 = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** Entries are read in windows of about this many bytes: few reads, bounded memory. */
const WINDOW = 4 << 20;
/** A central-directory entry's fixed part; the name, extra field and comment follow. */
const CENTRAL_FIXED = 46;

export async function fileSource(path: string): Promise<RandomAccessSource> {
  const handle = await open(path, 'r');
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const buffer = Buffer.allocUnsafe(Math.max(0, Math.min(length, size - offset)));
      let filled = 0;
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return buffer.subarray(0, filled);
    },
    close: () => handle.close(),
  };
}

/** Where the central directory is and how many entries it lists. */
async function readDirectoryLocation(
  source: RandomAccessSource,
): Promise<{ offset: number; size: number; count: number }> {
  const tailLength = Math.min(source.size, 22 + 0xffff + 20 + 56);
  const tail = await source.read(source.size - tailLength, tailLength);
  let end = -1;
  for (let at = tail.length - 22; at >= 0; at -= 1)
    if (tail.readUInt32LE(at) === END) {
      end = at;
      break;
    }
  if (end < 0) throw new ZipFormatError('no end of central directory record (a truncated download?)');
  let count = tail.readUInt16LE(end + 10);
  let size = tail.readUInt32LE(end + 12);
  let offset = tail.readUInt32LE(end + 16);
  const locator = end - 20;
  if (locator >= 0 && tail.readUInt32LE(locator) === LOCATOR64) {
    const end64Offset = Number(tail.readBigUInt64LE(locator + 8));
    const end64 = await source.read(end64Offset, 56);
    if (end64.length < 56 || end64.readUInt32LE(0) !== END64) throw new ZipFormatError('damaged ZIP64 end record');
    count = Number(end64.readBigUInt64LE(32));
    size = Number(end64.readBigUInt64LE(40));
    offset = Number(end64.readBigUInt64LE(48));
  }
  if (offset + size > source.size) throw new ZipFormatError('central directory past the end of the archive');
  return { offset, size, count };
}

/** Keeps a window of the source and refills it so that a requested span is inside. */
function windowedReader(source: RandomAccessSource, limit: number) {
  let window: Buffer = Buffer.alloc(0);
  let windowStart = 0;
  /** The bytes [offset, offset + length) (fewer at `limit`), as a view into the window. */
  return async (offset: number, length: number): Promise<Buffer> => {
    const wanted = Math.min(length, limit - offset);
    if (offset < windowStart || offset + wanted > windowStart + window.length) {
      window = await source.read(offset, Math.min(Math.max(WINDOW, wanted), limit - offset));
      windowStart = offset;
    }
    return window.subarray(offset - windowStart, offset - windowStart + wanted);
  };
}

/** The central directory's entries from `from` on, read a window at a time. */
async function* centralEntries(
  source: RandomAccessSource,
  location: { offset: number; size: number },
  from: number,
): AsyncGenerator<CentralEntry> {
  const end = location.offset + location.size;
  const read = windowedReader(source, end);
  let at = location.offset;
  for (let index = 0; at < end; index += 1) {
    const fixed = await read(at, CENTRAL_FIXED);
    if (fixed.length < CENTRAL_FIXED || fixed.readUInt32LE(0) !== CENTRAL)
      throw new ZipFormatError(`central directory entry ${index} is damaged`);
    const nameLength = fixed.readUInt16LE(28);
    const extraLength = fixed.readUInt16LE(30);
    const length = CENTRAL_FIXED + nameLength + fixed.readUInt16LE(32);
    if (index >= from) {
      const whole = await read(at, CENTRAL_FIXED + nameLength + extraLength);
      const entry = {
        index,
        name: whole.toString('utf8', CENTRAL_FIXED, CENTRAL_FIXED + nameLength),
        method: whole.readUInt16LE(10),
        crc: whole.readUInt32LE(16),
        compressedSize: whole.readUInt32LE(20),
        size: whole.readUInt32LE(24),
        localOffset: whole.readUInt32LE(42),
      };
      if (entry.compressedSize === 0xffffffff || entry.size === 0xffffffff || entry.localOffset === 0xffffffff)
        Object.assign(entry, zip64Fields(whole.subarray(CENTRAL_FIXED + nameLength), entry));
      yield entry;
    }
    at += length + extraLength;
  }
}

/** The ZIP64 extended information extra field (0x0001): the 8-byte values of the fields saturated in the entry. */
function zip64Fields(
  extra: Buffer,
  entry: Pick<CentralEntry, 'size' | 'compressedSize' | 'localOffset'>,
): Pick<CentralEntry, 'size' | 'compressedSize' | 'localOffset'> {
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 1) {
      let field = at + 4;
      const next = () => {
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      return {
        size: entry.size === 0xffffffff ? next() : entry.size,
        compressedSize: entry.compressedSize === 0xffffffff ? next() : entry.compressedSize,
        localOffset: entry.localOffset === 0xffffffff ? next() : entry.localOffset,
      };
    }
    at += 4 + length;
  }
  throw new ZipFormatError('ZIP64 sizes without their extra field');
}

/** The number of entries the archive's central directory lists (a truncated archive fails here). */
export async function zipEntryCount(source: RandomAccessSource): Promise<number> {
  return (await readDirectoryLocation(source)).count;
}

/** What the central directory says of an entry, without reading it. */
export interface ZipDirectoryEntry {
  index: number;
  name: string;
  /** The CRC-32 of the entry's inflated bytes. */
  crc: number;
  size: number;
  compressedSize: number;
}

/** Every entry the central directory lists, in its order: nothing is read past the directory. */
export async function* zipDirectory(source: RandomAccessSource): AsyncGenerator<ZipDirectoryEntry> {
  const location = await readDirectoryLocation(source);
  for await (const { index, name, crc, size, compressedSize } of centralEntries(source, location, 0))
    yield { index, name, crc, size, compressedSize };
}

/**
 * Every entry from index `from` on, inflated and checked, in central-directory order; with `include`,
 * only the entries it accepts (the others are neither read nor inflated).
 */
export async function* readZipEntries(
  source: RandomAccessSource,
  from = 0,
  include?: (index: number) => boolean,
): AsyncGenerator<ZipEntry> {
  const location = await readDirectoryLocation(source);
  const read = windowedReader(source, source.size);
  for await (const entry of centralEntries(source, location, from)) {
    if (include && !include(entry.index)) continue;
    // The local header's name and extra lengths may differ from the central directory's: read them there.
    const header = await read(entry.localOffset, 30);
    if (header.length < 30 || header.readUInt32LE(0) !== LOCAL)
      throw new ZipFormatError(`entry ${entry.index} (${entry.name}) has no local header`);
    const dataStart = entry.localOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    const compressed = await read(dataStart, entry.compressedSize);
    if (compressed.length !== entry.compressedSize) throw new ZipFormatError(`entry ${entry.index} is cut short`);
    let bytes: Buffer;
    if (entry.method === 0) bytes = compressed;
    else if (entry.method === 8) bytes = inflateRawSync(compressed);
    else throw new ZipFormatError(`entry ${entry.index} uses compression method ${entry.method}`);
    if (bytes.length !== entry.size || crc32(bytes) !== entry.crc)
      throw new ZipFormatError(`entry ${entry.index} (${entry.name}) does not match its CRC-32`);
    yield { index: entry.index, name: entry.name, bytes };
  }
}
