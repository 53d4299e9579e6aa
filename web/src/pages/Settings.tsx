import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api/client';
import { ErrorMessage, fieldText, Notice, Section, formatDate } from '../components';
import { must, useLoad, useTitle } from '../hooks';
import { can, useMe } from '../session';
// Every scope a key may hold, in the service's order, and what a CI job running the Action needs.
import { CI_SCOPES, SCOPES } from '../../../shared/service/identity/scopes';
import { SessionTimeouts, Sla } from './TeamPolicies';

type Permission = Schemas['Member']['permissions'][number];
type Scope = Schemas['CreateApiKey']['scopes'][number];

const PERMISSIONS: Array<{ value: Permission; text: string }> = [
  { value: 'content.write', text: 'Edit content (products, SBOMs, decisions, VEX)' },
  { value: 'settings.manage', text: 'Manage settings (members, keys, policies)' },
];

export function SettingsPage() {
  useTitle('Settings');
  const me = useMe();
  const manage = can(me, 'settings:write');
  // One read of the team settings for the sections that show and save them.
  const settings = useLoad(() => must(api.GET('/api/settings')).then((body) => body.data), []);
  return (
    <>
      <h1>Settings</h1>
      {!manage ? (
        <p class="notice">You can read these settings; changing them needs the “Manage settings” permission.</p>
      ) : null}
      <Members manage={manage} myId={me.caller.id} />
      <ApiKeys manage={manage} />
      <Sla manage={manage} settings={settings} />
      <SessionTimeouts manage={manage} settings={settings} />
    </>
  );
}

function Members({ manage, myId }: { manage: boolean; myId: string }) {
  const members = useLoad(() => must(api.GET('/api/members')), []);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const invite = async (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const email = fieldText(form, 'email');
    const name = fieldText(form, 'name');
    const permissions = form.getAll('permissions').map(String) as Permission[];
    const { error: failure } = await api.POST('/api/members', {
      body: { email, ...(name ? { name } : {}), permissions },
    });
    if (failure) setError(errorText(failure));
    else {
      setError(undefined);
      setNotice(`${email} invited: they can sign in now.`);
      formElement.reset();
      members.reload();
    }
  };
  const setPermission = async (member: Schemas['Member'], permission: Permission, on: boolean) => {
    const permissions = on
      ? [...new Set([...member.permissions, permission])]
      : member.permissions.filter((value) => value !== permission);
    const { error: failure } = await api.PUT('/api/members/{memberId}', {
      params: { path: { memberId: member.id } },
      body: { permissions },
    });
    setError(failure ? errorText(failure) : undefined);
    setNotice(failure ? undefined : `Permissions of ${member.email} saved.`);
    members.reload();
  };
  const remove = async (member: Schemas['Member']) => {
    if (!window.confirm(`Remove ${member.email} from the team? Their sessions end at once.`)) return;
    const { error: failure } = await api.DELETE('/api/members/{memberId}', {
      params: { path: { memberId: member.id } },
    });
    setError(failure ? errorText(failure) : undefined);
    setNotice(failure ? undefined : `${member.email} removed.`);
    members.reload();
  };
  return (
    <Section title="Members">
      <ErrorMessage message={error ?? members.error} />
      <Notice message={notice} />
      <table>
        <caption class="visually-hidden">Team members</caption>
        <thead>
          <tr>
            <th scope="col">Member</th>
            {PERMISSIONS.map((permission) => (
              <th scope="col" key={permission.value}>
                {permission.value}
              </th>
            ))}
            <th scope="col">Since</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(members.data?.data ?? []).map((member) => (
            <tr key={member.id}>
              <td>
                {member.name}
                <div class="muted small">{member.email}</div>
              </td>
              {PERMISSIONS.map((permission) => (
                <td key={permission.value}>
                  <input
                    type="checkbox"
                    aria-label={`${permission.value} for ${member.email}`}
                    disabled={!manage}
                    checked={member.permissions.includes(permission.value)}
                    onChange={(event) => void setPermission(member, permission.value, event.currentTarget.checked)}
                  />
                </td>
              ))}
              <td>{formatDate(member.createdAt)}</td>
              <td>
                {manage && member.id !== myId ? (
                  <button type="button" class="danger" onClick={() => void remove(member)}>
                    Remove<span class="visually-hidden"> {member.email}</span>
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {manage ? (
        <form class="grid-form" aria-label="Invite a member" onSubmit={(event) => void invite(event)}>
          <h3 class="wide">Invite a member</h3>
          <label>
            Email
            <input name="email" type="email" required maxLength={254} />
          </label>
          <label>
            Name
            <input name="name" maxLength={255} />
          </label>
          <fieldset class="wide">
            <legend>Permissions</legend>
            {PERMISSIONS.map((permission) => (
              <label class="check" key={permission.value}>
                <input type="checkbox" name="permissions" value={permission.value} />
                {permission.text}
              </label>
            ))}
          </fieldset>
          <div class="actions">
            <button type="submit" class="primary">
              Invite
            </button>
          </div>
        </form>
      ) : null}
    </Section>
  );
}

function ApiKeys({ manage }: { manage: boolean }) {
  const keys = useLoad(() => must(api.GET('/api/keys')), []);
  // Who created a key, by name where the creator is a member (keys made with the admin CLI name the operator).
  const members = useLoad(() => must(api.GET('/api/members')), []);
  const creator = (id: string) => members.data?.data.find((member) => member.id === id)?.name ?? id;
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<Schemas['CreatedApiKey'] | undefined>();
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(CI_SCOPES));
  const [copied, setCopied] = useState<string>();
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
      setCopied(undefined);
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
  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied.');
    } catch {
      setCopied('Copy it from the field above.');
    }
  };
  return (
    <Section title="API keys">
      <ErrorMessage message={error ?? keys.error} />
      {created ? (
        <div class="created-key" role="status">
          <p>
            <strong>Key {created.name} created.</strong> Copy it now: it is shown only once.
          </p>
          <label>
            Key value
            <input
              readOnly
              value={created.key}
              class="mono"
              data-testid="created-key"
              onFocus={(event) => event.currentTarget.select()}
            />
          </label>
          <div class="actions">
            <button type="button" onClick={() => void copy()}>
              Copy
            </button>
            <button type="button" onClick={() => setCreated(undefined)}>
              Done
            </button>
            <span>{copied}</span>
          </div>
        </div>
      ) : null}
      <table>
        <caption class="visually-hidden">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scopes</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(keys.data?.data ?? []).map((key) => (
            <tr key={key.id}>
              <td>
                {key.name}
                <div class="muted small">by {creator(key.createdBy)}</div>
              </td>
              <td class="small">{key.scopes.join(', ')}</td>
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
