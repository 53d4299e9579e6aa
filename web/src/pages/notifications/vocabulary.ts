/**
 * The values the notification forms offer, typed from the API's schemas: each table is checked against its
 * generated type (`satisfies Record<…>`), so a type the service adds or drops fails `npm run typecheck` here.
 */
import type { Schemas } from '../../api/client';

export type Channel = Schemas['NotificationChannel'];
export type ChannelType = Channel['type'];
export type Rule = Schemas['NotificationRule'];
export type RuleFilters = Schemas['NotificationRuleFilters'];
export type EventType = Rule['eventTypes'][number];
export type Severity = NonNullable<RuleFilters['minSeverity']>;
export type ReleaseStatus = NonNullable<RuleFilters['releaseStatus']>[number];
export type Delivery = Schemas['NotificationDelivery'];
export type DeliveryStatus = Delivery['status'];
export type RuleMode = Rule['mode'];

export const CHANNEL_TYPE_TEXT = {
  webhook: 'Webhook (signed, Standard Webhooks)',
  slack: 'Slack incoming webhook',
  email: 'E-mail',
} satisfies Record<ChannelType, string>;
export const CHANNEL_TYPES = Object.keys(CHANNEL_TYPE_TEXT) as ChannelType[];

/** What each event reports, and the scope that reads it (a rule may send only events its creator may read). */
const EVENT_TYPE_INFO = {
  'finding.detected': { text: 'a finding is detected', scope: 'vulnerabilities:read' },
  'finding.resolved': { text: 'a finding is resolved', scope: 'vulnerabilities:read' },
  'finding.kev_added': { text: 'a finding is listed in CISA KEV', scope: 'vulnerabilities:read' },
  'finding.severity_changed': { text: "a finding's severity changes", scope: 'vulnerabilities:read' },
  'scan.completed': { text: 'a scan completes', scope: 'sboms:read' },
  'scan.failed': { text: 'a scan fails', scope: 'sboms:read' },
  'vex.submitted': { text: 'a VEX document waits for approval', scope: 'vex:read' },
  'vex.approved': { text: 'a VEX document is approved', scope: 'vex:read' },
  'vex.rejected': { text: 'a VEX document is rejected', scope: 'vex:read' },
  'vex.published': { text: 'a VEX document is published', scope: 'vex:read' },
  'disclosure.stale': { text: 'a disclosure no longer matches the findings', scope: 'vulnerabilities:read' },
  'cra.case_opened': { text: 'a CRA case opens', scope: 'vulnerabilities:read' },
  'cra.deadline_approaching': { text: 'a CRA deadline approaches', scope: 'vulnerabilities:read' },
  'cra.deadline_missed': { text: 'a CRA deadline is missed', scope: 'vulnerabilities:read' },
  'channel.disabled': { text: 'a notification channel is disabled', scope: 'settings:read' },
  'apikey.expiring': { text: 'an API key expires within 7 days', scope: 'settings:read' },
} satisfies Record<EventType, { text: string; scope: string }>;
export const EVENT_TYPES = Object.keys(EVENT_TYPE_INFO) as EventType[];
export const eventTypeInfo = (type: EventType): { text: string; scope: string } => EVENT_TYPE_INFO[type];

const SEVERITY_ORDER = { critical: 0, high: 1, medium: 2, low: 3 } satisfies Record<Severity, number>;
export const SEVERITIES = Object.keys(SEVERITY_ORDER) as Severity[];

const RELEASE_STATUS_TEXT = {
  active: 'active',
  deprecated: 'deprecated',
  'end-of-life': 'end of life',
} satisfies Record<ReleaseStatus, string>;
export const RELEASE_STATUSES = Object.keys(RELEASE_STATUS_TEXT) as ReleaseStatus[];
export const releaseStatusText = (status: ReleaseStatus): string => RELEASE_STATUS_TEXT[status];

const DELIVERY_STATUS_TEXT = {
  pending: 'pending',
  delivered: 'delivered',
  failed: 'failed (will retry)',
  dead: 'dead (gave up)',
} satisfies Record<DeliveryStatus, string>;
export const DELIVERY_STATUSES = Object.keys(DELIVERY_STATUS_TEXT) as DeliveryStatus[];
export const deliveryStatusText = (status: DeliveryStatus): string => DELIVERY_STATUS_TEXT[status];

const MODE_TEXT = {
  immediate: 'at once',
  daily_digest: 'daily digest',
} satisfies Record<RuleMode, string>;
export const RULE_MODES = Object.keys(MODE_TEXT) as RuleMode[];
export const modeText = (mode: RuleMode): string => MODE_TEXT[mode];

/** The browser's IANA time zones (for the digest's time-zone suggestions), with UTC first. */
export function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...zones.filter((zone) => zone !== 'UTC')];
}

/** The browser's own time zone, the natural default for a digest hour. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
