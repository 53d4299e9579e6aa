import * as z from 'zod';
import { DATE_TIME_EXAMPLE, pagedListSchema } from './common';

/** Every kind of event of a team's stream (docs/events.md "Event types"). */
export const EVENT_TYPES = [
  'finding.detected',
  'finding.resolved',
  'finding.kev_added',
  'finding.severity_changed',
  'scan.completed',
  'scan.failed',
  'vex.submitted',
  'vex.approved',
  'vex.rejected',
  'vex.published',
  'disclosure.stale',
  'cra.case_opened',
  'cra.deadline_approaching',
  'cra.deadline_missed',
  'channel.disabled',
  'apikey.expiring',
] as const;
export type EventTypeName = (typeof EVENT_TYPES)[number];

/** The most events one page carries: a burst of 10,000 (one corpus change) is ten requests. */
export const EVENTS_MAX_PER_PAGE = 1000;

const eventTypeList = z
  .string()
  .max(400)
  .transform((raw, context) => {
    const items = raw.split(',').map((item) => item.trim().toLowerCase());
    const unknown = items.filter((item) => !(EVENT_TYPES as readonly string[]).includes(item));
    if (unknown.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `must be one or more of ${EVENT_TYPES.join(', ')}, comma-separated (e.g. scan.completed,scan.failed); "${unknown[0] ?? ''}" is not one`,
      });
      return z.NEVER;
    }
    return [...new Set(items)] as EventTypeName[];
  })
  .meta({ description: `Comma-separated, any of: ${EVENT_TYPES.join(', ')}`, example: 'scan.completed,scan.failed' });

/** Query of the event stream: filters that all must match, paged newest first. */
export const eventListQuery = z.strictObject({
  since: z.iso
    .datetime({ offset: true, error: `must be an ISO 8601 date-time with offset, e.g. ${DATE_TIME_EXAMPLE}` })
    .optional()
    .meta({ description: 'Only events that occurred after this time (exclusive)' }),
  type: eventTypeList.optional(),
  productId: z.uuid().optional(),
  releaseId: z.uuid().optional(),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  perPage: z.coerce.number().int().min(1).max(EVENTS_MAX_PER_PAGE).default(100),
});
export type EventListQuery = z.output<typeof eventListQuery>;

export const teamEventSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(EVENT_TYPES),
    occurred_at: z.string(),
    product_id: z.string(),
    release_id: z.string(),
    sbom_id: z.string().optional(),
    finding_id: z.string().optional(),
    advisory_id: z.string().optional(),
    data: z.record(z.string(), z.unknown()).meta({ description: 'Fields of the event type (docs/events.md)' }),
  })
  .meta({ id: 'TeamEvent' });
export type TeamEventView = z.infer<typeof teamEventSchema>;

export const eventListResponse = pagedListSchema(teamEventSchema, 'EventList');
