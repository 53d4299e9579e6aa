import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../api/client';
import { ColumnHeads, ErrorMessage, fieldText, Notice, Section, formatDate } from '../components';
import { must, useLoad } from '../hooks';

type Permission = Schemas['Member']['permissions'][number];

const PERMISSIONS: Array<{ value: Permission; text: string }> = [
  { value: 'content.write', text: 'Edit content (products, SBOMs, decisions, VEX)' },
  { value: 'settings.manage', text: 'Manage settings (members, keys, policies)' },
];

/** The team's members: invite, permissions, removal (with what becomes of the credentials the member owns). */
export function Members({ manage, myId, onRemoved }: { manage: boolean; myId: string; onRemoved: () => void }) {
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
  const [removing, setRemoving] = useState<Schemas['Member']>();
  const removed = (member: Schemas['Member'], heir: Schemas['Member'] | undefined) => {
    setRemoving(undefined);
    setError(undefined);
    setNotice(
      heir
        ? `${member.email} removed. Their API keys and CI trust policies now belong to ${heir.email}.`
        : `${member.email} removed. Their API keys are revoked and their CI trust policies deleted.`,
    );
    members.reload();
    onRemoved();
  };
  return (
    <Section title="Members">
      <ErrorMessage message={error ?? members.error} />
      <Notice message={notice} />
      <table>
        <caption class="visually-hidden">Team members</caption>
        <ColumnHeads names={['Member', ...PERMISSIONS.map((permission) => permission.value), 'Since']} actions />
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
                  <button type="button" class="danger" onClick={() => setRemoving(member)}>
                    Remove<span class="visually-hidden"> {member.email}</span>
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {removing ? (
        <RemoveMember
          key={removing.id}
          member={removing}
          heirs={(members.data?.data ?? []).filter(
            (member) => member.id !== removing.id && member.permissions.includes('settings.manage'),
          )}
          onRemoved={(heir) => removed(removing, heir)}
          onCancel={() => setRemoving(undefined)}
        />
      ) : null}
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

/**
 * Removing a member ends their sessions; the API keys and CI trust policies they own are revoked and deleted, or
 * handed over to another manager, who then owns them and whose permissions cap them (docs/security-authorization.md).
 */
function RemoveMember(props: {
  member: Schemas['Member'];
  heirs: Array<Schemas['Member']>;
  onRemoved: (heir: Schemas['Member'] | undefined) => void;
  onCancel: () => void;
}) {
  const { member, heirs } = props;
  const [handOver, setHandOver] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const heirId = handOver ? fieldText(new FormData(event.currentTarget as HTMLFormElement), 'heir') : '';
    const { error: failure } = await api.DELETE('/api/members/{memberId}', {
      params: { path: { memberId: member.id }, query: heirId ? { handOverTo: heirId } : {} },
    });
    if (failure) setError(errorText(failure));
    else props.onRemoved(heirs.find((heir) => heir.id === heirId));
  };
  return (
    <form class="grid-form" aria-label={`Remove ${member.email}`} onSubmit={(event) => void submit(event)}>
      <h3 class="wide">Remove {member.email}</h3>
      <p class="wide">Their sessions end at once.</p>
      <ErrorMessage message={error} />
      <fieldset class="wide">
        <legend>Their API keys and CI trust policies</legend>
        <label class="check">
          <input type="radio" name="credentials" checked={!handOver} onChange={() => setHandOver(false)} />
          Revoke the keys and delete the trust policies
        </label>
        <label class="check">
          <input
            type="radio"
            name="credentials"
            checked={handOver}
            disabled={heirs.length === 0}
            onChange={() => setHandOver(true)}
          />
          Hand them over to another member who manages settings
        </label>
        {handOver ? (
          <label>
            New owner
            <select name="heir" required>
              {heirs.map((heir) => (
                <option key={heir.id} value={heir.id}>
                  {heir.name} ({heir.email})
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </fieldset>
      <div class="actions">
        <button type="submit" class="danger">
          Remove member
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
