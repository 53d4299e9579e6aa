/**
 * The in-toto statement of an OpenVEX disclosure, as `vexctl attest` wraps it:
 * predicate = the published OpenVEX document, subject = the release's
 * artifacts (the products its statements name) with their digests. in-toto
 * requires a digest on every subject, so a product is a subject only when its
 * digest is known: an OCI purl's version (`pkg:oci/app@sha256:…`) or the
 * product's `hashes`. With no such product there is no attestation
 * (docs/disclosure-verification.md).
 */
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const OPENVEX_PREDICATE_TYPE = 'https://openvex.dev/ns/v0.2.0';

interface Subject {
  name: string;
  digest: Record<string, string>;
}

/** OpenVEX hash names (spec "Hash") → in-toto digest names. */
const DIGEST_NAMES: Record<string, string> = {
  md5: 'md5',
  sha1: 'sha1',
  'sha-256': 'sha256',
  'sha-384': 'sha384',
  'sha-512': 'sha512',
  'sha3-224': 'sha3_224',
  'sha3-256': 'sha3_256',
  'sha3-384': 'sha3_384',
  'sha3-512': 'sha3_512',
  'blake2s-256': 'blake2s256',
  'blake2b-256': 'blake2b256',
  'blake2b-512': 'blake2b512',
  blake3: 'blake3',
};

const OCI_DIGEST = /^pkg:oci\/[^@?#]+@(sha256|sha512)(?::|%3A)([0-9a-f]{64,128})(?:[?#]|$)/i;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function subjectOf(product: Record<string, unknown>): Subject | null {
  const name = typeof product['@id'] === 'string' ? product['@id'] : null;
  if (!name) return null;
  const digest: Record<string, string> = {};
  for (const [algorithm, value] of Object.entries(record(product.hashes))) {
    const mapped = DIGEST_NAMES[algorithm.toLowerCase()];
    if (mapped && typeof value === 'string') digest[mapped] = value.toLowerCase();
  }
  const oci = OCI_DIGEST.exec(name);
  if (oci?.[1] && oci[2]) digest[oci[1].toLowerCase()] = oci[2].toLowerCase();
  return Object.keys(digest).length > 0 ? { name, digest } : null;
}

/** The statement's bytes, or null when no product of the document has a digest. */
export function inTotoStatementOf(openVexBytes: Buffer): Buffer | null {
  const document = record(JSON.parse(openVexBytes.toString('utf8')));
  const subjects = new Map<string, Subject>();
  for (const statement of Array.isArray(document.statements) ? document.statements : []) {
    for (const product of (Array.isArray(record(statement).products) ? record(statement).products : []) as unknown[]) {
      const subject = subjectOf(record(product));
      if (subject && !subjects.has(subject.name)) subjects.set(subject.name, subject);
    }
  }
  if (subjects.size === 0) return null;
  return Buffer.from(
    JSON.stringify({
      _type: IN_TOTO_STATEMENT_TYPE,
      subject: [...subjects.values()],
      predicateType: OPENVEX_PREDICATE_TYPE,
      predicate: document,
    }),
    'utf8',
  );
}
