import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../../api/client';
import { ColumnHeads, ErrorMessage, Notice, Section } from '../../components';
import { must, useLoad } from '../../hooks';
import { useMe } from '../../session';
import { RuleForm } from './RuleForm';
import { EVENT_TYPES, modeText, releaseStatusText, type Channel, type Rule } from './vocabulary';

type Product = Schemas['Product'];

/** A rule's filters in a few words ("critical or worse · KEV only · shop, api"). */
function filtersText(rule: Rule, products: Map<string, Product>): string {
  const { productIds, minSeverity, kevOnly, releaseStatus } = rule.filters;
  const parts = [
    minSeverity ? (minSeverity === 'critical' ? 'critical only' : `${minSeverity} or worse`) : undefined,
    kevOnly ? 'KEV only' : undefined,
    releaseStatus ? `releases ${releaseStatus.map(releaseStatusText).join(' or ')}` : undefined,
    productIds ? `products ${productIds.map((id) => products.get(id)?.name ?? id).join(', ')}` : undefined,
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : 'none';
}

function whenText(rule: Rule): string {
  return rule.mode === 'daily_digest'
    ? `${modeText(rule.mode)} at ${String(rule.digestHour).padStart(2, '0')}:00 ${rule.digestTimeZone}`
    : modeText(rule.mode);
}

/** The team's rules: which events go to which channel, filtered, at once or as a daily digest. */
export function Rules({ manage, channels }: { manage: boolean; channels: Channel[] }) {
  const me = useMe();
  const rules = useLoad(() => must(api.GET('/api/notification-rules')), []);
  // The product filter offers the team's first 100 products (a rule names at most 100).
  const products = useLoad(
    () => must(api.GET('/api/products', { params: { query: { perPage: 100 } } })).then((body) => body.data),
    [],
  );
  const productById = new Map((products.data ?? []).map((product) => [product.id, product]));
  const channelName = (id: string) => channels.find((channel) => channel.id === id)?.name ?? 'deleted channel';
  const [editing, setEditing] = useState<Rule | 'new'>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();

  const remove = async (rule: Rule) => {
    if (!window.confirm(`Delete the rule ${rule.name}?`)) return;
    const { error: failure } = await api.DELETE('/api/notification-rules/{ruleId}', {
      params: { path: { ruleId: rule.id } },
    });
    setError(failure ? errorText(failure) : undefined);
    setNotice(failure ? undefined : `Rule ${rule.name} deleted.`);
    if (editing !== 'new' && editing?.id === rule.id) setEditing(undefined);
    rules.reload();
  };
  const saved = (rule: Rule, created: boolean) => {
    setEditing(undefined);
    setError(undefined);
    setNotice(`Rule ${rule.name} ${created ? 'created' : 'saved'}.`);
    rules.reload();
  };

  const list = rules.data?.data ?? [];
  return (
    <Section title="Rules">
      <p class="muted">
        A rule sends the events it names, when every filter holds, to one channel. A team without rules gets nothing.
      </p>
      <ErrorMessage message={error ?? rules.error} />
      <Notice message={notice} />
      {rules.data && list.length === 0 ? <p class="muted">No rules yet.</p> : null}
      <table>
        <caption class="visually-hidden">Notification rules</caption>
        <ColumnHeads names={['Name', 'Channel', 'Events', 'Filters', 'When', 'State']} actions={manage} />
        <tbody>
          {list.map((rule) => (
            <tr key={rule.id}>
              <td>{rule.name}</td>
              <td>{channelName(rule.channelId)}</td>
              <td class="small">
                {rule.eventTypes.length === EVENT_TYPES.length ? 'every type' : rule.eventTypes.join(', ')}
              </td>
              <td class="small">{filtersText(rule, productById)}</td>
              <td>{whenText(rule)}</td>
              <td>{rule.enabled ? 'On' : 'Off'}</td>
              {manage ? (
                <td>
                  <div class="actions">
                    <button type="button" onClick={() => setEditing(rule)}>
                      Edit<span class="visually-hidden"> rule {rule.name}</span>
                    </button>
                    <button type="button" class="danger" onClick={() => void remove(rule)}>
                      Delete<span class="visually-hidden"> rule {rule.name}</span>
                    </button>
                  </div>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {manage && editing === undefined ? (
        <div class="actions">
          <button type="button" class="primary" disabled={channels.length === 0} onClick={() => setEditing('new')}>
            New rule
          </button>
          {channels.length === 0 ? <span class="muted">Add a channel first.</span> : null}
        </div>
      ) : null}
      {manage && editing !== undefined ? (
        <RuleForm
          key={editing === 'new' ? 'new' : editing.id}
          rule={editing === 'new' ? undefined : editing}
          channels={channels}
          products={products.data ?? []}
          productsError={products.error}
          scopes={me.scopes}
          onSaved={saved}
          onCancel={() => setEditing(undefined)}
        />
      ) : null}
    </Section>
  );
}
