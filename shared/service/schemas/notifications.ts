/** Notification channels, rules and the delivery log (docs/notifications.md). */
import * as z from 'zod';
import { oneLine, pagedListSchema } from './common';
import { EVENT_TYPES } from './events';

export const CHANNEL_TYPES = ['webhook', 'slack', 'email'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const RULE_MODES = ['immediate', 'daily_digest'] as const;
export const MIN_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export const RELEASE_STATUSES = ['active', 'deprecated', 'end-of-life'] as const;
/** What a delivery carries besides the stream's events: a channel test and a rule's daily digest. */
export const DELIVERY_EVENT_TYPES = [...EVENT_TYPES, 'test', 'digest'] as const;

const name = oneLine(z.string().trim().min(1).max(100));
const url = z
  .string()
  .max(2048)
  .meta({ description: 'https URL (http://127.0.0.1 only where loopback webhooks are allowed)' });
const recipients = z
  .array(z.email({ error: 'must be an e-mail address, e.g. psirt@example.com' }))
  .min(1)
  .max(50)
  .meta({ description: 'Up to 50 addresses' });
/** Who an e-mail channel writes to: fixed addresses, or the members who may approve (resolved per message). */
const emailRecipients = z.union([
  recipients,
  z.literal('approvers').meta({
    description:
      "`approvers`: each message goes to the team's members who may approve VEX documents (permission content.write), less a vex.submitted document's submitter when the team requires a distinct approver; resolved when it is sent",
  }),
]);

export const createChannelBody = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('webhook'), name, url }),
  z.strictObject({ type: z.literal('slack'), name, url: url.meta({ description: 'A Slack incoming-webhook URL' }) }),
  z.strictObject({ type: z.literal('email'), name, recipients: emailRecipients }),
]);
export type CreateChannelBody = z.infer<typeof createChannelBody>;

export const updateChannelBody = z
  .strictObject({
    name: name.optional(),
    url: url.optional(),
    recipients: emailRecipients.optional(),
    enabled: z.boolean().optional().meta({ description: 'true re-enables a channel disabled after failures' }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one field to change' });
export type UpdateChannelBody = z.infer<typeof updateChannelBody>;

export const channelIdParams = z.strictObject({ channelId: z.uuid() });
export const ruleIdParams = z.strictObject({ ruleId: z.uuid() });
export const deliveryIdParams = z.strictObject({ deliveryId: z.uuid() });

export const channelSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(CHANNEL_TYPES),
    enabled: z.boolean(),
    disabledReason: z.string().nullable(),
    target: z.string().meta({ description: 'Where it delivers, with the secret parts of the URL left out' }),
    recipients: z.array(z.string()).optional(),
    approvers: z
      .boolean()
      .optional()
      .meta({ description: 'true: an e-mail channel writing to the members who may approve, not to fixed recipients' }),
    consecutiveFailures: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'NotificationChannel' });
export type ChannelView = z.infer<typeof channelSchema>;

export const channelWithSecretSchema = channelSchema
  .extend({
    secret: z
      .string()
      .optional()
      .meta({ description: 'Webhook signing secret (whsec_…): shown only in this answer', example: 'whsec_…' }),
  })
  .meta({ id: 'NotificationChannelWithSecret' });

const severity = z.enum(MIN_SEVERITIES);
export const ruleFiltersSchema = z
  .strictObject({
    productIds: z.array(z.uuid()).min(1).max(100).optional(),
    minSeverity: severity.optional().meta({ description: 'Only events whose finding is at least this severe' }),
    kevOnly: z.boolean().optional().meta({ description: 'Only events whose finding is in CISA KEV' }),
    releaseStatus: z.array(z.enum(RELEASE_STATUSES)).min(1).optional(),
  })
  .meta({ id: 'NotificationRuleFilters' });

export const timeZone = z
  .string()
  .max(64)
  .refine(
    (zone) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    },
    { message: 'must be an IANA time zone, e.g. Europe/Berlin' },
  );

const ruleFields = {
  name,
  channelId: z.uuid(),
  eventTypes: z.array(z.enum(EVENT_TYPES)).min(1).max(EVENT_TYPES.length).meta({ description: 'Omitted: every type' }),
  filters: ruleFiltersSchema,
  mode: z.enum(RULE_MODES),
  digestHour: z.number().int().min(0).max(23).meta({ description: 'Hour of the daily digest, in digestTimeZone' }),
  digestTimeZone: timeZone,
  enabled: z.boolean(),
};

export const createRuleBody = z.strictObject({
  name: ruleFields.name,
  channelId: ruleFields.channelId,
  eventTypes: ruleFields.eventTypes.optional(),
  filters: ruleFields.filters.default({}),
  mode: ruleFields.mode.default('immediate'),
  digestHour: ruleFields.digestHour.default(8),
  digestTimeZone: ruleFields.digestTimeZone.default('UTC'),
  enabled: ruleFields.enabled.default(true),
});
export type CreateRuleBody = z.output<typeof createRuleBody>;

export const updateRuleBody = z
  .strictObject({
    name: ruleFields.name.optional(),
    channelId: ruleFields.channelId.optional(),
    eventTypes: ruleFields.eventTypes.optional(),
    filters: ruleFields.filters.optional(),
    mode: ruleFields.mode.optional(),
    digestHour: ruleFields.digestHour.optional(),
    digestTimeZone: ruleFields.digestTimeZone.optional(),
    enabled: ruleFields.enabled.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'name at least one field to change' });
export type UpdateRuleBody = z.output<typeof updateRuleBody>;

export const ruleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    channelId: z.string(),
    eventTypes: z.array(z.enum(EVENT_TYPES)),
    filters: ruleFiltersSchema,
    mode: z.enum(RULE_MODES),
    digestHour: z.number().int(),
    digestTimeZone: z.string(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'NotificationRule' });
export type NotificationRule = z.infer<typeof ruleSchema>;

export const deliverySchema = z
  .object({
    id: z.string(),
    channelId: z.string(),
    ruleId: z.string().nullable(),
    eventId: z.string(),
    eventType: z.enum(DELIVERY_EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES),
    attempt: z.number().int().meta({ description: 'Attempts made so far' }),
    responseStatus: z.number().int().nullable(),
    responseBody: z.string().nullable().meta({ description: 'First 1 KB of the last answer' }),
    durationMs: z.number().int().nullable(),
    error: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    lastAttemptAt: z.string().nullable(),
  })
  .meta({ id: 'NotificationDelivery' });
export type DeliveryView = z.infer<typeof deliverySchema>;

export const deliveryListQuery = z.strictObject({
  channelId: z.uuid().optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  eventId: z.uuid().optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  perPage: z.coerce.number().int().min(1).max(100).default(25),
});
export type DeliveryListQuery = z.output<typeof deliveryListQuery>;

export const channelListResponse = z.object({ data: z.array(channelSchema) });
export const channelResponse = z.object({ data: channelSchema });
export const channelWithSecretResponse = z.object({ data: channelWithSecretSchema });
export const ruleListResponse = z.object({ data: z.array(ruleSchema) });
export const ruleResponse = z.object({ data: ruleSchema });
export const deliveryResponse = z.object({ data: deliverySchema });
export const deliveryListResponse = pagedListSchema(deliverySchema, 'NotificationDeliveryList');
