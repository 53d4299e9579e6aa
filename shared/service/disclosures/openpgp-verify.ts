/**
 * Checks an armored OpenPGP detached signature over exact bytes against a set of
 * armored public keys: what `gpg --verify sig.asc file` decides. Pure (openpgp.js
 * only, no table or SDK), so the service's `/verify` and the client CLI's offline
 * `verify` share one rule.
 */
export interface DetachedVerification {
  /** The signature verifies with one of the given keys. */
  valid: boolean;
  /** The 64-bit key id the signature names (upper-case hex), whether or not a given key has it. */
  issuerKeyId: string | null;
  /** The fingerprint of the given key that has that id, if any. */
  fingerprint: string | null;
}

/** Throws only for a signature or key that is not OpenPGP at all; a wrong signature is `valid: false`. */
export async function verifyDetachedSignature(
  bytes: Uint8Array,
  armoredSignature: string,
  armoredKeys: readonly string[],
): Promise<DetachedVerification> {
  const openpgp = await import('openpgp');
  const signature = await openpgp.readSignature({ armoredSignature });
  // One armored block may hold several keys (the team's key file lists every key it ever used).
  const verificationKeys = (
    await Promise.all(armoredKeys.map((armored) => openpgp.readKeys({ armoredKeys: armored })))
  ).flat();
  const issuerKeyId = signature.getSigningKeyIDs()[0]?.toHex().toUpperCase() ?? null;
  const signer = verificationKeys.find((key) => key.getKeyID().toHex().toUpperCase() === issuerKeyId);
  const fingerprint = signer ? signer.getFingerprint().toUpperCase() : null;
  if (!signer) return { valid: false, issuerKeyId, fingerprint };
  const message = await openpgp.createMessage({ binary: bytes });
  const result = await openpgp.verify({ message, signature, verificationKeys: [signer], format: 'binary' });
  const [first] = result.signatures;
  if (!first) return { valid: false, issuerKeyId, fingerprint };
  try {
    await first.verified;
    return { valid: true, issuerKeyId, fingerprint };
  } catch {
    return { valid: false, issuerKeyId, fingerprint };
  }
}
