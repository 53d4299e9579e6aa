/**
 * `vexdesk verify SLUG-or-URL`: fetches a public disclosure's exact bytes and checks their
 * SHA-256 against the `content_hash` its JSON states. The service's HMAC needs its secret key,
 * so only the service can check it (its answer is shown); no public-key signature exists yet
 * to check offline, and the output says so rather than implying one was checked.
 */
import { createHash } from 'node:crypto';
import { ApiClient } from '../api-client';
import { EXIT_CODES, ServiceError, UsageError } from '../errors';
import { pairs, type Output } from '../output';

const SLUG = /^[a-z0-9-]{1,200}$/;

/** A slug needs the service URL; a disclosure URL (`…/api/disclosures/<slug>[/verify][?format=raw]`) names both. */
export function parseDisclosureRef(ref: string, baseUrl: string | undefined): { api: ApiClient; slug: string } {
  if (SLUG.test(ref)) {
    if (!baseUrl) throw new UsageError('a disclosure slug needs the service URL: pass --url or set VEXDESK_URL, or give the disclosure\'s URL');
    return { api: new ApiClient(baseUrl, undefined), slug: ref };
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
  return { api: new ApiClient(`${url.origin}${url.pathname.slice(0, at)}`, undefined), slug };
}

interface DisclosureJson {
  public_slug: string;
  content_hash: string;
  signed: boolean;
  format: string;
  published_at: string;
}

export async function verify(ref: string, baseUrl: string | undefined, out: Output): Promise<number> {
  const { api, slug } = parseDisclosureRef(ref, baseUrl);
  const path = `/api/disclosures/${slug}`;
  // The JSON first: an unknown slug is the service's 404 (exit 3), not a hash mismatch.
  const { body: meta } = await api.get<{ data: DisclosureJson }>(path, { anonymous: true });
  const [raw, { body: service }] = await Promise.all([
    api.raw('GET', path, { anonymous: true, query: { format: 'raw' }, headers: { accept: '*/*' } }),
    api.get<{ signature_valid: boolean | null; signature_algorithm: string | null }>(`${path}/verify`, { anonymous: true }),
  ]);
  if (!raw.ok) throw new ServiceError(`GET ${path}?format=raw → ${raw.status}`, raw.status);
  const bytes = Buffer.from(await raw.arrayBuffer());
  const computed = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const stated = meta.data.content_hash;
  const hashValid = computed === stated;
  const serviceSignature = service.signature_valid === null ? 'not checked by the service (unsigned or older key)' : service.signature_valid ? 'valid (checked by the service)' : 'INVALID (checked by the service)';
  const machine = {
    slug, format: meta.data.format, published_at: meta.data.published_at, bytes: bytes.length,
    content_hash: stated, computed_hash: computed, content_hash_valid: hashValid,
    hmac_signature: { signed: meta.data.signed, algorithm: service.signature_algorithm, valid: service.signature_valid, checked_by: 'service' },
    public_key_signature: { checked: false, reason: 'the service does not publish public-key signatures yet' },
  };
  out.result([
    pairs([
      ['disclosure', `${slug} (${meta.data.format}, published ${meta.data.published_at})`],
      ['content hash', `${hashValid ? 'OK' : 'MISMATCH'}: stated ${stated}, computed ${computed} over ${bytes.length} bytes`],
      ['HMAC signature', meta.data.signed ? serviceSignature : 'none'],
    ]),
    '',
    'No public-key signature was checked: the service does not publish one yet, so only the content hash was verified here.',
  ].join('\n'), machine);
  return hashValid ? EXIT_CODES.pass : EXIT_CODES.gateFailed;
}
