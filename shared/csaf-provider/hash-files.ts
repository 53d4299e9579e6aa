/**
 * `.sha256` / `.sha512` files (CSAF 2.0 requirement 18) in the form `sha256sum -c` reads:
 * the hex digest, two spaces, the file name, a newline. Computed from the stored bytes, so
 * the same for anyone who hashes the same snapshot.
 */
import { createHash } from 'node:crypto';

export const HASH_ALGORITHMS = ['sha256', 'sha512'] as const;
export type HashAlgorithm = (typeof HASH_ALGORITHMS)[number];

export function hashFile(algorithm: HashAlgorithm, bytes: Buffer, fileName: string): string {
  return `${createHash(algorithm).update(bytes).digest('hex')}  ${fileName}\n`;
}
