import * as z from 'zod';

export const auditExportQuery = z.object({
  accountId: z.uuid(),
  entityType: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z_]+$/)
    .optional(),
  action: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z_.]+$/)
    .optional(),
  startDate: z.iso.datetime({ offset: true }).optional(),
  endDate: z.iso.datetime({ offset: true }).optional(),
});
