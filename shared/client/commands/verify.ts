/**
 * `vexdesk verify SLUG-or-URL`: fetches a public disclosure's exact bytes, checks their
 * SHA-256 against the `content_hash` its JSON states, and checks the OpenPGP detached
 * signature (`links.signature`) offline, here, with openpgp.js: against the key file the user
 * pins (`--key`, trust established out of band), else against the publisher's key list the
 * service serves, optionally pinned to a fingerprint (`--fingerprint`). The service's HMAC
 * needs its secret key, so only the service can check it (its answer is shown as such).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { verifyDetachedSignature } from '../../service/disclosures/openpgp-verify';
import { createApiClient, ok, type ApiClient } from '../api-client';
import type { Disclosure } from '../api-types';
import { EXIT_CODES, ServiceError, UsageError } from '../errors';
import { pairs, type Output } from '../output';

const SLUG = /^[a-z0-9-]{1,200}$/;
/** A slug needs the service URL; a disclosure URL (`…/api/disclosures/<slug>[/verify][?format=raw]`) names both. */
export function parseDisclosureRef(ref: string, baseUrl: string | undefined): { api: ApiClient; slug: string } {
  if (SLUG.test(ref)) {
    if (!baseUrl)
      throw new UsageError(
        "a disclosure slug needs the service URL: pass --url or set VEXDESK_URL, or give the disclosure's URL",
      );
    return { api: createApiClient(baseUrl), slug: ref };
  }
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw new UsageError(`"${ref}" is neither a disclosure slug nor a URL`);
  }
  const marker = '/api/disclosures/';
  const at = url.pathname.indexOf(marker);
  const slug = at < 0 ? '' : (url.pathname.slice(at + marker.length).split('/')[0] ?? '');
  if (!SLUG.test(slug)) throw new UsageError(`${ref} is not a disclosure URL (…/api/disclosures/<slug>)`);
  return { api: createApiClient(`${url.origin}${url.pathname.slice(0, at)}`), slug };
}

export interface VerifyOptions {
  /** An armored public key file to verify with instead of the service's key list. */
  keyFile?: string;
  /** The signing key's fingerprint as the publisher states it elsewhere (spaces allowed). */
  fingerprint?: string;
  /** Fail when the disclosure has no public-key signature (published before signatures existed). */
  requireSignature?: boolean;
}

type SignatureCheck =
  | { checked: false; reason: string }
  | {
      checked: true;
      valid: boolean;
      key_fingerprint: string | null;
      key_source: 'file' | 'service';
      fingerprint_pinned: string | null;
      fingerprint_matches: boolean | null;
    };

/** `--fingerprint` as gpg prints it (`AAAA BBBB …`) or as one hex string. */
export function normalizeFingerprint(raw: string): string {
  const fingerprint = raw.replace(/\s+/g, '').toUpperCase();
  if (!/^[0-9A-F]{40}$|^[0-9A-F]{64}$/.test(fingerprint))
    throw new UsageError(`--fingerprint must be an OpenPGP fingerprint (40 or 64 hex digits), got "${raw}"`);
  return fingerprint;
}

async function checkSignature(
  api: ApiClient,
  meta: Disclosure,
  bytes: Buffer,
  options: VerifyOptions,
): Promise<SignatureCheck> {
  const signaturePath = meta.links.signature;
  if (!signaturePath)
    return {
      checked: false,
      reason: 'the disclosure has no public-key signature (published before the service signed disclosures)',
    };
  let armoredKeys: string;
  if (options.keyFile) {
    try {
      armoredKeys = await readFile(options.keyFile, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read --key ${options.keyFile}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  } else {
    if (!meta.links.public_keys) throw new ServiceError('the disclosure is signed but links no public_keys');
    armoredKeys = await api.linkedText(meta.links.public_keys);
  }
  const armoredSignature = await api.linkedText(signaturePath);
  let result;
  try {
    result = await verifyDetachedSignature(new Uint8Array(bytes), armoredSignature, [armoredKeys]);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (options.keyFile)
      throw new UsageError(
        `cannot verify with --key ${options.keyFile} (an armored OpenPGP public key is expected): ${reason}`,
      );
    throw new ServiceError(`the service's signature or key list is not OpenPGP: ${reason}`);
  }
  const pinned = options.fingerprint ? normalizeFingerprint(options.fingerprint) : null;
  return {
    checked: true,
    valid: result.valid,
    key_fingerprint: result.fingerprint,
    key_source: options.keyFile ? 'file' : 'service',
    fingerprint_pinned: pinned,
    fingerprint_matches: pinned === null ? null : pinned === result.fingerprint,
  };
}

function describeSignature(check: SignatureCheck): string {
  if (!check.checked) return `not checked: ${check.reason}`;
  const source = check.key_source === 'file' ? 'your key file' : "the publisher's key list on the service";
  if (!check.valid)
    return check.key_fingerprint
      ? `INVALID: does not verify with key ${check.key_fingerprint} (${source})`
      : `INVALID: made by a key ${source} does not hold`;
  if (check.fingerprint_matches === false)
    return `valid, but by key ${check.key_fingerprint ?? '?'}, NOT the pinned ${check.fingerprint_pinned ?? ''}`;
  return `valid: key ${check.key_fingerprint ?? '?'} (${source}${check.fingerprint_matches ? ', matches --fingerprint' : ''})`;
}

/** What to trust and why, under the result: a key list served beside the document proves origin only once its fingerprint is checked. */
function trustNote(check: SignatureCheck): string {
  if (!check.checked) return 'No public-key signature was checked: only the content hash was verified here.';
  if (check.key_source === 'service' && check.fingerprint_pinned === null) {
    return 'The key came from the same service as the document: compare its fingerprint with one the publisher states elsewhere (its CSAF provider-metadata.json, security page), or pass --fingerprint or --key.';
  }
  return 'Checked offline against the key you pinned.';
}

function signatureOk(check: SignatureCheck, options: VerifyOptions): boolean {
  if (!check.checked) return !options.requireSignature;
  return check.valid && check.fingerprint_matches !== false;
}

export async function verify(
  ref: string,
  baseUrl: string | undefined,
  out: Output,
  options: VerifyOptions = {},
): Promise<number> {
  if (options.fingerprint) normalizeFingerprint(options.fingerprint);
  const { api, slug } = parseDisclosureRef(ref, baseUrl);
  const params = { path: { slug } };
  // The JSON first: an unknown slug is the service's 404 (exit 3), not a hash mismatch.
  const { body: meta } = await ok(api.GET('/api/disclosures/{slug}', { params }));
  const [raw, { body: service }] = await Promise.all([
    ok(
      api.GET('/api/disclosures/{slug}', {
        params: { ...params, query: { format: 'raw' } },
        parseAs: 'arrayBuffer',
        headers: { accept: '*/*' },
      }),
    ),
    ok(api.GET('/api/disclosures/{slug}/verify', { params })),
  ]);
  const bytes = Buffer.from(raw.body);
  const computed = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const stated = meta.data.content_hash;
  const hashValid = computed === stated;
  const signature = await checkSignature(api, meta.data, bytes, options);
  const serviceSignature =
    service.signature_valid === null
      ? 'not checked by the service (unsigned or older key)'
      : service.signature_valid
        ? 'valid (checked by the service)'
        : 'INVALID (checked by the service)';
  const machine = {
    slug,
    format: meta.data.format,
    published_at: meta.data.published_at,
    bytes: bytes.length,
    content_hash: stated,
    computed_hash: computed,
    content_hash_valid: hashValid,
    hmac_signature: {
      signed: meta.data.signed,
      algorithm: service.signature_algorithm,
      valid: service.signature_valid,
      checked_by: 'service',
    },
    public_key_signature: signature,
  };
  out.result(
    [
      pairs([
        ['disclosure', `${slug} (${meta.data.format}, published ${meta.data.published_at})`],
        [
          'content hash',
          `${hashValid ? 'OK' : 'MISMATCH'}: stated ${stated}, computed ${computed} over ${bytes.length} bytes`,
        ],
        ['OpenPGP signature', describeSignature(signature)],
        ['HMAC signature', meta.data.signed ? serviceSignature : 'none'],
      ]),
      '',
      trustNote(signature),
    ].join('\n'),
    machine,
  );
  return hashValid && signatureOk(signature, options) ? EXIT_CODES.pass : EXIT_CODES.gateFailed;
}
