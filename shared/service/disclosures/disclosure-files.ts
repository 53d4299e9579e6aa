/**
 * The files published beside a disclosure snapshot, named in one place: their
 * S3 suffixes, the file names they are served as, their media types and the
 * disclosure's links to them. The raw download is served as `<slug>.json`, the
 * name the checksum files list (`sha256sum -c` reads `<hex>  <file name>`) and
 * the name a customer gives `gpg --verify <slug>.json.asc <slug>.json`.
 */
import { createHash } from 'node:crypto';
import { keys } from '../data/keys';

export type DisclosureFileKind = 'signature' | 'sha256' | 'sha512' | 'attestation';

export const DISCLOSURE_FILES: Record<DisclosureFileKind, { suffix: string; contentType: string; route: string }> = {
  signature: { suffix: 'asc', contentType: 'application/pgp-signature', route: 'signature' },
  sha256: { suffix: 'sha256', contentType: 'text/plain; charset=utf-8', route: 'sha256' },
  sha512: { suffix: 'sha512', contentType: 'text/plain; charset=utf-8', route: 'sha512' },
  // The envelope `vexctl attest` writes (DSSE v1, in-toto statement inside).
  attestation: { suffix: 'intoto.json', contentType: 'application/vnd.dsse.envelope.v1+json', route: 'attestation' },
};

/** The name the raw snapshot is downloaded as (Content-Disposition) and listed under in the checksum files. */
export function rawFileName(slug: string): string {
  return `${slug}.json`;
}

export function disclosureFileName(slug: string, kind: DisclosureFileKind): string {
  return `${rawFileName(slug)}.${DISCLOSURE_FILES[kind].suffix}`;
}

export function disclosureFileObjectKey(slug: string, kind: DisclosureFileKind): string {
  return keys.disclosureFileObject(slug, DISCLOSURE_FILES[kind].suffix);
}

export function disclosureFilePath(slug: string, kind: DisclosureFileKind): string {
  return `/api/disclosures/${slug}/${DISCLOSURE_FILES[kind].route}`;
}

/** One line of `sha256sum` / `sha512sum` output (text mode: two spaces), what `-c` checks. */
export function checksumFile(algorithm: 'sha256' | 'sha512', bytes: Buffer, fileName: string): string {
  return `${createHash(algorithm).update(bytes).digest('hex')}  ${fileName}\n`;
}

/** Where a team's public keys are served; the CSAF provider metadata names the same URLs. */
export function publicKeysPath(teamId: string, form: 'asc' | 'jwks' | 'json'): string {
  const base = `/api/disclosures/publishers/${teamId}/keys`;
  return form === 'json' ? base : `${base}?format=${form}`;
}

export function contentDisposition(fileName: string): string {
  // File names here are slugs (a-z, 0-9, '-') plus fixed suffixes: no quoting issue.
  return `attachment; filename="${fileName}"`;
}
