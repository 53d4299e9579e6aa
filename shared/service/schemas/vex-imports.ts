import * as z from 'zod';
import { dispositionStatus } from './dispositions';
import { vexFormat } from './vex';

/** The media types a VEX import accepts as its body (the document itself, not wrapped). */
export const VEX_IMPORT_MEDIA_TYPES = [
  'application/json',
  'application/vnd.cyclonedx+json',
  'application/csaf+json',
  'application/openvex+json',
] as const;

const importStatementResult = z.object({
  pointer: z.string().meta({ description: "JSON pointer of the statement's product reference in the document" }),
  vulnerability: z.string(),
  product: z.string(),
  status: dispositionStatus.nullable(),
  outcome: z.enum(['applied', 'unchanged', 'unmatched']),
  reason: z.enum(['no_matching_component', 'no_matching_vulnerability', 'invalid_for_status', 'superseded']).nullable(),
  message: z.string().nullable(),
  vulnerabilityIds: z.array(z.uuid()),
});

export const vexImportResponse = z
  .object({
    data: z.object({
      releaseId: z.uuid(),
      format: vexFormat,
      documentSha256: z.string(),
      author: z.string().nullable(),
      importedAt: z.string(),
      summary: z.object({
        statements: z.number().int(),
        applied: z.number().int(),
        unchanged: z.number().int(),
        unmatched: z.number().int(),
        dispositionsWritten: z.number().int(),
      }),
      statements: z.array(importStatementResult),
    }),
  })
  .meta({ id: 'VexImport' });
