import { useState } from 'preact/hooks';
import { api, errorText, type Schemas } from '../../api/client';
import { ErrorMessage, fieldText } from '../../components';
import {
  EVENT_TYPES,
  eventTypeInfo,
  localTimeZone,
  modeText,
  RELEASE_STATUSES,
  releaseStatusText,
  RULE_MODES,
  SEVERITIES,
  timeZones,
  type Channel,
  type EventType,
  type ReleaseStatus,
  type Rule,
  type RuleFilters,
  type RuleMode,
  type Severity,
} from './vocabulary';

/** What a new rule starts with: the findings a PSIRT on call is paged for. */
const NEW_RULE_EVENTS: EventType[] = ['finding.detected', 'finding.kev_added'];
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);

/** The filters the form sets; an unset filter is left out (every filter set must hold). */
function filtersOf(form: FormData): RuleFilters {
  const productIds = form.getAll('productIds').map(String);
  const minSeverity = fieldText(form, 'minSeverity') as Severity | '';
  const releaseStatus = form.getAll('releaseStatus').map(String) as ReleaseStatus[];
  return {
    ...(productIds.length ? { productIds } : {}),
    ...(minSeverity ? { minSeverity } : {}),
    ...(form.get('kevOnly') ? { kevOnly: true } : {}),
    ...(releaseStatus.length ? { releaseStatus } : {}),
  };
}

/**
 * Creates a rule, or edits `rule`: channel, event types, filters, immediate or a daily digest. The fields are uncontrolled
 * (`defaultChecked`, `selected`): switching the mode re-renders the form without resetting what was chosen.
 */
export function RuleForm(props: {
  rule: Rule | undefined;
  channels: Channel[];
  products: Array<Schemas['Product']>;
  productsError: string | undefined;
  scopes: string[];
  onSaved: (rule: Rule, created: boolean) => void;
  onCancel: () => void;
}) {
  const { rule, channels, products, scopes } = props;
  const [mode, setMode] = useState<RuleMode>(rule?.mode ?? 'immediate');
  const [error, setError] = useState<string>();
  const chosenEvents = new Set<EventType>(rule?.eventTypes ?? NEW_RULE_EVENTS);
  const chosenProducts = new Set(rule?.filters.productIds ?? []);
  const chosenStatuses = new Set(rule?.filters.releaseStatus ?? []);
  const title = rule ? `Edit rule ${rule.name}` : 'New rule';

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const eventTypes = form.getAll('eventTypes').map(String) as EventType[];
    if (eventTypes.length === 0) {
      setError('Choose at least one event type.');
      return;
    }
    const body = {
      name: fieldText(form, 'name'),
      channelId: fieldText(form, 'channelId'),
      eventTypes,
      filters: filtersOf(form),
      mode,
      ...(mode === 'daily_digest'
        ? { digestHour: Number(fieldText(form, 'digestHour')), digestTimeZone: fieldText(form, 'digestTimeZone') }
        : {}),
      enabled: form.get('enabled') !== null,
    };
    const { data, error: failure } = rule
      ? await api.PUT('/api/notification-rules/{ruleId}', { params: { path: { ruleId: rule.id } }, body })
      : await api.POST('/api/notification-rules', { body });
    if (failure || !data) setError(errorText(failure));
    else props.onSaved(data.data, !rule);
  };

  return (
    <form class="grid-form" aria-label={title} onSubmit={(event) => void submit(event)}>
      <h3 class="wide">{title}</h3>
      <label>
        Name
        <input name="name" required maxLength={100} defaultValue={rule?.name} />
      </label>
      <label>
        Channel
        <select name="channelId" required>
          {channels.map((channel) => (
            <option key={channel.id} value={channel.id} selected={channel.id === rule?.channelId}>
              {channel.name} ({channel.type})
            </option>
          ))}
        </select>
      </label>
      <fieldset class="wide scopes">
        <legend>Event types</legend>
        {EVENT_TYPES.map((type) => {
          const { text, scope } = eventTypeInfo(type);
          const allowed = scopes.includes(scope);
          return (
            <label class="check" key={type} title={allowed ? text : `Needs ${scope}`}>
              <input
                type="checkbox"
                name="eventTypes"
                value={type}
                disabled={!allowed}
                defaultChecked={allowed && chosenEvents.has(type)}
              />
              <span class="mono">{type}</span> <span class="muted small">({allowed ? text : `needs ${scope}`})</span>
            </label>
          );
        })}
      </fieldset>
      <label>
        Products (none chosen: every product)
        <select name="productIds" multiple size={Math.min(Math.max(products.length, 2), 6)}>
          {products.map((product) => (
            <option key={product.id} value={product.id} selected={chosenProducts.has(product.id)}>
              {product.name}
            </option>
          ))}
        </select>
        {props.productsError ? <span class="muted small">{props.productsError}</span> : null}
      </label>
      <label>
        Minimum severity
        <select name="minSeverity">
          <option value="">any (or none)</option>
          {SEVERITIES.map((severity) => (
            <option key={severity} value={severity} selected={severity === rule?.filters.minSeverity}>
              {severity}
            </option>
          ))}
        </select>
      </label>
      <label class="check">
        <input type="checkbox" name="kevOnly" defaultChecked={rule?.filters.kevOnly ?? false} />
        KEV only (findings listed in CISA KEV)
      </label>
      <fieldset>
        <legend>Release status (none chosen: any)</legend>
        {RELEASE_STATUSES.map((status) => (
          <label class="check" key={status}>
            <input type="checkbox" name="releaseStatus" value={status} defaultChecked={chosenStatuses.has(status)} />
            {releaseStatusText(status)}
          </label>
        ))}
      </fieldset>
      <label>
        Send
        <select name="mode" value={mode} onChange={(event) => setMode(event.currentTarget.value as RuleMode)}>
          {RULE_MODES.map((value) => (
            <option key={value} value={value}>
              {modeText(value)}
            </option>
          ))}
        </select>
      </label>
      {mode === 'daily_digest' ? (
        <>
          <label>
            Digest hour
            <select name="digestHour">
              {HOURS.map((hour) => (
                <option key={hour} value={String(hour)} selected={hour === (rule?.digestHour ?? 8)}>
                  {String(hour).padStart(2, '0')}:00
                </option>
              ))}
            </select>
          </label>
          <label>
            Time zone (IANA)
            <input
              name="digestTimeZone"
              required
              maxLength={64}
              list="notification-time-zones"
              defaultValue={rule?.digestTimeZone ?? localTimeZone()}
            />
            <datalist id="notification-time-zones">
              {timeZones().map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
          </label>
        </>
      ) : null}
      <label class="check">
        <input type="checkbox" name="enabled" defaultChecked={rule?.enabled ?? true} />
        Enabled
      </label>
      <ErrorMessage message={error} />
      <div class="actions">
        <button type="submit" class="primary">
          {rule ? 'Save rule' : 'Create rule'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
