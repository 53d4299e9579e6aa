/**
 * The seam between the CSAF provider and the team's OpenPGP publisher keys
 * (shared/service/disclosures/publisher-keys.ts): the keys provider-metadata.json lists, and the
 * `.asc` stored beside each disclosure at publication, served again for the directory's file
 * (same bytes, so the same signature; the public function never signs).
 */
import { Disclosures } from '../disclosures/disclosures';
import { PublisherKeys } from '../disclosures/publisher-keys';
import { NotFoundError } from '../errors';

export interface ProviderKey {
  /** Upper-case hex fingerprint, as provider-metadata.json's `public_openpgp_keys[].fingerprint`. */
  fingerprint: string;
  /** ASCII-armored public key, served at `openpgp/<fingerprint>.asc` beside provider-metadata.json. */
  armored: string;
}

/** The team's public OpenPGP keys, current and retired (old signatures stay verifiable). */
export async function providerKeys(teamId: string): Promise<ProviderKey[]> {
  return (await PublisherKeys.publicKeys(teamId)).map((key) => ({
    fingerprint: key.fingerprint,
    armored: key.armored,
  }));
}

/** Every publication gets a detached signature: the feed lists `rel: signature`. */
export function publishesSignatures(): boolean {
  return true;
}

/** The armored detached signature stored with the disclosure `slug`, or null for one published before signatures existed. */
export async function detachedSignature(slug: string): Promise<string | null> {
  try {
    return (await Disclosures.readFile(slug, 'signature')).bytes.toString('utf8');
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
