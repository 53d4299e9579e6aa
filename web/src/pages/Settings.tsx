import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api/client';
import { ColumnHeads, ErrorMessage, fieldText, Section, ShownOnce, formatDate } from '../components';
import { must, useLoad, useTitle } from '../hooks';
import { can, useMe } from '../session';
// Every scope a key may hold, in the service's order, and what a CI job running the Action needs.
import { CI_SCOPES, SCOPES } from '../../../shared/service/identity/scopes';
import { Members } from './Members';
import { SessionTimeouts, Sla } from './TeamPolicies';
import { CraSettings } from './cra/CraSettings';

type Scope = Schemas['CreateApiKey']['scopes'][number];

/** Whom a key or trust policy acts for: its owner's current permissions cap it. */
function ownerText(owner: Schemas['ApiKey']['owner'] | Schemas['TrustPolicy']['owner']): string {
  if (!owner) return 'not recorded';
  return owner.kind === 'operator' ? 'the operator (admin CLI)' : (owner.email ?? owner.id);
}

export function SettingsPage() {
  useTitle('Settings');
  const me = useMe();
  const manage = can(me, 'settings:write');
  // One read of the team settings for the sections that show and save them.
  const settings = useLoad(() => must(api.GET('/api/settings')).then((body) => body.data), []);
  // Removing a member revokes or hands over the keys and policies they own: both lists read again.
  const [credentialsChanged, setCredentialsChanged] = useState(0);
  return (
    <>
      <h1>Settings</h1>
      <nav aria-label="Settings pages" class="links">
        <a href="/settings/notifications">Notifications: channels, rules and the delivery log</a>
      </nav>
      {!manage ? (
        <p class="notice">You can read these settings; changing them needs the “Manage settings” permission.</p>
      ) : null}
      <Members manage={manage} myId={me.caller.id} onRemoved={() => setCredentialsChanged((count) => count + 1)} />
      <ApiKeys manage={manage} changed={credentialsChanged} />
      <TrustPolicies changed={credentialsChanged} />
      <Sla manage={manage} settings={settings} />
      <SessionTimeouts manage={manage} settings={settings} />
      <CraSettings manage={manage} settings={settings} />
    </>
  );
}

function ApiKeys({ manage, changed }: { manage: boolean; changed: number }) {
  const keys = useLoad(() => must(api.GET('/api/keys')), [changed]);
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<Schemas['CreatedApiKey'] | undefined>();
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(CI_SCOPES));
  const create = async (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const expires = Number(form.get('expiresInDays') ?? 0);
    const { data, error: failure } = await api.POST('/api/keys', {
      body: {
        name: fieldText(form, 'name'),
        scopes: [...scopes],
        ...(expires ? { expiresInDays: expires as 30 | 90 | 180 | 365 } : {}),
      },
    });
    if (failure || !data) setError(errorText(failure));
    else {
      setError(undefined);
      setCreated(data.data);
      formElement.reset();
      keys.reload();
    }
  };
  const revoke = async (key: Schemas['ApiKey']) => {
    if (!window.confirm(`Revoke the key ${key.name}? Requests with it fail at once.`)) return;
    const { error: failure } = await api.DELETE('/api/keys/{keyId}', { params: { path: { keyId: key.id } } });
    setError(failure ? errorText(failure) : undefined);
    keys.reload();
  };
  return (
    <Section title="API keys">
      <ErrorMessage message={error ?? keys.error} />
      {created ? (
        <ShownOnce
          key={created.id}
          label="Key value"
          value={created.key}
          testId="created-key"
          onDone={() => setCreated(undefined)}
        >
          <strong>Key {created.name} created.</strong> Copy it now: it is shown only once.
        </ShownOnce>
      ) : null}
      <table>
        <caption class="visually-hidden">API keys</caption>
        <ColumnHeads names={['Name', 'Scopes', 'Owner', 'Created', 'Expires', 'State']} actions />
        <tbody>
          {(keys.data?.data ?? []).map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td class="small">{key.scopes.join(', ')}</td>
              <td>{ownerText(key.owner)}</td>
              <td>{formatDate(key.createdAt)}</td>
              <td>{key.expiresAt ? formatDate(key.expiresAt) : 'Never'}</td>
              <td>{key.revokedAt ? `Revoked ${formatDate(key.revokedAt)}` : 'Active'}</td>
              <td>
                {manage && !key.revokedAt ? (
                  <button type="button" class="danger" onClick={() => void revoke(key)}>
                    Revoke<span class="visually-hidden"> {key.name}</span>
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {manage ? (
        <form class="grid-form" aria-label="Create an API key" onSubmit={(event) => void create(event)}>
          <h3 class="wide">Create a key</h3>
          <label>
            Name
            <input name="name" required maxLength={100} pattern="[\w.\-]+" title="Letters, digits, _ . -" />
          </label>
          <label>
            Expires
            <select name="expiresInDays">
              <option value="90">in 90 days</option>
              <option value="30">in 30 days</option>
              <option value="180">in 180 days</option>
              <option value="365">in 365 days</option>
              <option value="0">never</option>
            </select>
          </label>
          <fieldset class="wide scopes">
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label class="check" key={scope}>
                <input
                  type="checkbox"
                  checked={scopes.has(scope)}
                  onChange={(event) => {
                    const next = new Set(scopes);
                    if (event.currentTarget.checked) next.add(scope);
                    else next.delete(scope);
                    setScopes(next);
                  }}
                />
                {scope}
              </label>
            ))}
          </fieldset>
          <div class="actions">
            <button type="submit" class="primary" disabled={scopes.size === 0}>
              Create key
            </button>
          </div>
        </form>
      ) : null}
    </Section>
  );
}

/** The team's CI trust policies (created with the CLI or the API, docs/oidc.md), with whom their tokens act for. */
function TrustPolicies({ changed }: { changed: number }) {
  const policies = useLoad(() => must(api.GET('/api/trust-policies')), [changed]);
  return (
    <Section title="CI trust policies">
      <ErrorMessage message={policies.error} />
      {policies.data?.data.length === 0 ? <p class="muted">No trust policies.</p> : null}
      <table>
        <caption class="visually-hidden">CI trust policies</caption>
        <ColumnHeads names={['Name', 'Scopes', 'Owner', 'Created']} />
        <tbody>
          {(policies.data?.data ?? []).map((policy) => (
            <tr key={policy.id}>
              <td>
                {policy.name}
                <div class="muted small">{policy.issuer}</div>
              </td>
              <td class="small">{policy.scopes.join(', ')}</td>
              <td>{ownerText(policy.owner)}</td>
              <td>{formatDate(policy.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
