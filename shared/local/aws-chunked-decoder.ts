/**
 * `aws-chunked` request bodies, what SDK v3 sends for streamed uploads with checksums:
 * decoded, and their CRC32 trailer checked, before s3rver stores them (it would store
 * them verbatim).
 */
import { Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import { S3Error, header, type KoaContext } from './embedded-s3rver';

/** Decodes an `aws-chunked` body (`<hex size>[;chunk-signature=...]\r\n<data>\r\n ... 0\r\n<trailers>\r\n`). */
class AwsChunkedDecoder extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size';
  private remaining = 0;
  private decoded = 0;
  private crc = 0;
  private readonly trailers = new Map<string, string>();

  constructor(private readonly expectedLength: number | undefined) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    try {
      this.drain();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.state !== 'trailer' && this.state !== 'done')
      return callback(new S3Error('IncompleteBody', 'The request body terminated unexpectedly'));
    if (this.expectedLength !== undefined && this.decoded !== this.expectedLength)
      return callback(
        new S3Error(
          'IncompleteBody',
          'You did not provide the number of bytes specified by the Content-Length HTTP header',
        ),
      );
    const expected = this.trailers.get('x-amz-checksum-crc32');
    if (expected !== undefined) {
      const actual = Buffer.alloc(4);
      actual.writeUInt32BE(this.crc >>> 0);
      if (actual.toString('base64') !== expected)
        return callback(new S3Error('BadDigest', 'The CRC32 you specified did not match the calculated checksum.'));
    }
    callback();
  }

  private drain(): void {
    for (;;) {
      if (this.state === 'done') {
        this.pending = Buffer.alloc(0);
        return;
      }
      if (this.state === 'data') {
        if (this.pending.length === 0) return;
        const piece = this.pending.subarray(0, this.remaining);
        this.pending = this.pending.subarray(piece.length);
        this.remaining -= piece.length;
        this.decoded += piece.length;
        this.crc = crc32(piece, this.crc);
        this.push(piece);
        if (this.remaining === 0) this.state = 'data-end';
        continue;
      }
      const end = this.pending.indexOf('\r\n');
      if (end < 0) {
        if (this.pending.length > 64 * 1024) throw new S3Error('InvalidRequest', 'Malformed aws-chunked body');
        return;
      }
      const line = this.pending.subarray(0, end).toString('latin1');
      this.pending = this.pending.subarray(end + 2);
      if (this.state === 'data-end') {
        if (line !== '') throw new S3Error('InvalidRequest', 'Malformed aws-chunked body');
        this.state = 'size';
      } else if (this.state === 'size') {
        const hex = line.split(';')[0] ?? '';
        if (!/^[0-9a-fA-F]+$/.test(hex)) throw new S3Error('InvalidRequest', 'Malformed aws-chunked body');
        this.remaining = Number.parseInt(hex, 16);
        this.state = this.remaining === 0 ? 'trailer' : 'data';
      } else if (line === '') {
        this.state = 'done';
      } else {
        const colon = line.indexOf(':');
        if (colon > 0) this.trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
    }
  }
}

/** Swaps an aws-chunked request body for its decoded bytes, and hides the encoding from s3rver. */
export function decodeAwsChunked(ctx: KoaContext): void {
  const headers = ctx.request.req.headers;
  const encodings = (header(headers, 'content-encoding') ?? '')
    .split(',')
    .map((encoding) => encoding.trim())
    .filter(Boolean);
  const streaming = header(headers, 'x-amz-content-sha256')?.startsWith('STREAMING-') ?? false;
  if (!encodings.includes('aws-chunked') && !streaming) return;
  const remainingEncodings = encodings.filter((encoding) => encoding !== 'aws-chunked');
  // Stored as the object's Content-Encoding otherwise.
  if (remainingEncodings.length) headers['content-encoding'] = remainingEncodings.join(',');
  else delete headers['content-encoding'];
  const decodedLength = header(headers, 'x-amz-decoded-content-length');
  const expected = decodedLength === undefined ? undefined : Number(decodedLength);
  if (expected !== undefined) headers['content-length'] = String(expected);
  const decoder = new AwsChunkedDecoder(Number.isFinite(expected) ? expected : undefined);
  ctx.request.req.pipe(decoder);
  ctx.request.req.on('error', (error) => decoder.destroy(error));
  ctx.req = decoder;
}
