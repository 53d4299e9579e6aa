/**
 * Object writes of the embedded S3 engine: objects and upload parts are written to a
 * temporary file and renamed into place, and acknowledged only once flushed (s3rver
 * answers as soon as its hashing stream is done, not the file).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FilesystemStore } from './embedded-s3rver';

/** Writes a body to a temporary file, then renames it into place once flushed. */
async function writeFileAtomically(target: string, content: Buffer | Readable): Promise<{ size: number; md5: string }> {
  await mkdir(path.dirname(target), { recursive: true });
  // Not ending in "._S3rver_object", so listings never show it.
  const temporary = `${target}.${randomUUID()}.tmp`;
  const md5 = createHash('md5');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  try {
    await pipeline(
      Buffer.isBuffer(content) ? Readable.from([content]) : content,
      measure,
      createWriteStream(temporary),
    );
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { size, md5: md5.digest('hex') };
}

/** Replaces the store's object and part writes with atomic ones. */
export function writeObjectsAtomically(store: FilesystemStore): void {
  store.putObject = async (object) => {
    const result = await writeFileAtomically(
      store.getResourcePath(object.bucket, object.key, 'object'),
      object.content,
    );
    await store.putMetadata(object.bucket, object.key, object.metadata, result.md5);
    return result;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const partPath = path.join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, partNumber);
    const result = await writeFileAtomically(partPath, content);
    await writeFileAtomically(`${partPath}.md5`, Buffer.from(result.md5));
    return result;
  };
}
