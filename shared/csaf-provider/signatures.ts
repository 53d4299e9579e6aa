/**
 * The one seam between the CSAF provider and the team's OpenPGP publisher keys (issue 11
 * item 1, shared/disclosures/publisher-keys.ts, merged separately). Until it is wired:
 * no keys are listed in provider-metadata.json, the feed lists no `signature` link, and
 * `.asc` and key URLs answer 404. Wiring it means filling in these three functions only.
 */

export interface ProviderKey {
  /** Upper-case hex fingerprint, as provider-metadata.json's `public_openpgp_keys[].fingerprint`. */
  fingerprint: string;
  /** ASCII-armored public key, served at `openpgp/<fingerprint>.asc` beside provider-metadata.json. */
  armored: string;
}

/** The team's public OpenPGP keys, current and retired (old signatures stay verifiable). */
export function providerKeys(_teamId: string): Promise<ProviderKey[]> {
  return Promise.resolve([]);
}

/** Whether every published document has a detached signature: the feed then lists `rel: signature`. */
export function publishesSignatures(): boolean {
  return false;
}

/** The armored detached signature over exactly `bytes` (the stored snapshot), or null when there is none. */
export function detachedSignature(_teamId: string, _bytes: Buffer): Promise<string | null> {
  return Promise.resolve(null);
}
