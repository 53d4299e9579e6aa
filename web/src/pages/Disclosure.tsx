/**
 * The public disclosure page, `/d/{slug}`: no sign-in, only the public disclosure routes
 * (GET /api/disclosures/{slug} and /verify; docs/disclosure-verification.md).
 */
import { api } from '../api/client';
import { ErrorMessage, Loading, Section, formatDate } from '../components';
import { must, useLoad, useTitle } from '../hooks';
import { label } from '../labels';
import { statementsOf } from '../statements';

export function DisclosurePage({ slug }: { slug: string }) {
  const disclosure = useLoad(
    () => must(api.GET('/api/disclosures/{slug}', { params: { path: { slug }, query: {} } })).then((body) => body.data),
    [slug],
  );
  const verification = useLoad(
    () => must(api.GET('/api/disclosures/{slug}/verify', { params: { path: { slug } } })),
    [slug],
  );
  const data = disclosure.data;
  useTitle(data ? `${data.product.name} ${data.release.version} disclosure` : 'Disclosure');
  if (disclosure.error) {
    return (
      <>
        <h1>Disclosure</h1>
        <ErrorMessage message={disclosure.error} />
      </>
    );
  }
  if (!data) return <Loading when />;
  const statements = statementsOf(data.format, data.content);
  const origin = window.location.origin;
  const absolute = (path: string | undefined) => (path ? new URL(path, origin).href : '');
  const hex = data.content_hash.replace(/^sha256:/, '');
  const check = verification.data;
  const openpgp = check?.public_key_signature;
  return (
    <>
      <p class="muted">Public vulnerability disclosure</p>
      <h1>
        {data.product.name} {data.release.version}
      </h1>
      <Section title="Document">
        <dl class="facts">
          <div>
            <dt>Product</dt>
            <dd>
              {data.product.name}
              {data.product.vendor ? ` by ${data.product.vendor}` : ''}
            </dd>
          </div>
          <div>
            <dt>Release</dt>
            <dd>{data.release.version}</dd>
          </div>
          <div>
            <dt>Format</dt>
            <dd>
              {label(data.format)} (version {data.version})
            </dd>
          </div>
          <div>
            <dt>Published</dt>
            <dd>{formatDate(data.published_at)}</dd>
          </div>
          <div class="wide">
            <dt>Content hash (SHA-256 of the raw download)</dt>
            <dd class="mono hash" data-testid="content-hash">
              {hex}
            </dd>
          </div>
          <div>
            <dt>Hash check</dt>
            <dd>
              {check ? (check.content_hash_valid ? 'Matches the stored document' : 'DOES NOT MATCH') : 'Checking…'}
            </dd>
          </div>
          <div>
            <dt>Server signature (HMAC)</dt>
            <dd>
              {check ? (check.signed ? (check.signature_valid ? 'Valid' : 'INVALID') : 'Not signed') : 'Checking…'}
            </dd>
          </div>
          <div>
            <dt>OpenPGP signature</dt>
            <dd data-testid="signature-status">
              {openpgp
                ? openpgp.signed
                  ? `${openpgp.signature_valid ? 'Valid' : 'INVALID'}${openpgp.key_status ? ` (key ${openpgp.key_status})` : ''}`
                  : 'Not signed'
                : check
                  ? 'Not signed'
                  : 'Checking…'}
            </dd>
          </div>
          {data.public_key_fingerprint ? (
            <div class="wide">
              <dt>Signing key fingerprint</dt>
              <dd class="mono">{data.public_key_fingerprint}</dd>
            </div>
          ) : null}
        </dl>
        <ErrorMessage message={verification.error} />
        <p class="links">
          <a href={data.links.raw} download={`${data.public_slug}.json`} data-testid="raw-download">
            Raw document
          </a>
          {data.links.signature ? <a href={data.links.signature}>Signature (.asc)</a> : null}
          {data.links.sha256 ? <a href={data.links.sha256}>SHA-256 file</a> : null}
          {data.links.sha512 ? <a href={data.links.sha512}>SHA-512 file</a> : null}
          {data.links.attestation ? <a href={data.links.attestation}>in-toto attestation</a> : null}
          {data.links.public_keys ? <a href={data.links.public_keys}>Publisher keys</a> : null}
        </p>
      </Section>
      <Section title={`Statements (${statements.length})`} id="statements">
        {statements.length ? (
          <div class="table-scroll">
            <table>
              <caption class="visually-hidden">Statements of this disclosure</caption>
              <thead>
                <tr>
                  <th scope="col">Vulnerability</th>
                  <th scope="col">Products</th>
                  <th scope="col">Status</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {statements.map((statement, index) => (
                  <tr key={index}>
                    <td class="mono">{statement.vulnerability}</td>
                    <td class="small mono">{statement.products.join('\n')}</td>
                    <td>
                      <span class={`status status-${statement.status}`}>{label(statement.status)}</span>
                    </td>
                    <td class="small">{statement.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p class="muted">This document has no statements.</p>
        )}
      </Section>
      <Section title="Verify it yourself">
        <p>
          You do not have to trust this page. Download the document and its signature, then check them with standard
          tools:
        </p>
        <pre class="document" tabIndex={0} aria-label="Verification commands">
          {[
            `curl -sSfOJ '${absolute(data.links.raw)}'`,
            data.links.sha256 ? `curl -sSfOJ '${absolute(data.links.sha256)}'` : '',
            data.links.signature ? `curl -sSfOJ '${absolute(data.links.signature)}'` : '',
            data.links.public_keys ? `curl -sSf '${absolute(data.links.public_keys)}' > publisher.asc` : '',
            '',
            `echo '${hex}  ${data.public_slug}.json' | sha256sum -c`,
            data.links.sha256 ? `sha256sum -c ${data.public_slug}.json.sha256` : '',
            data.links.public_keys ? 'gpg --import publisher.asc' : '',
            data.links.signature ? `gpg --verify ${data.public_slug}.json.asc ${data.public_slug}.json` : '',
          ]
            .filter((line, index, lines) => line !== '' || (index > 0 && lines[index - 1] !== ''))
            .join('\n')}
        </pre>
        <p>
          Compare the fingerprint gpg prints with the one the publisher lists out of band (its CSAF provider metadata,
          security page or release notes): trust comes from the fingerprint, not from this download.
        </p>
      </Section>
    </>
  );
}
