import * as z from 'zod';
import { oneLine } from './common';
import { EU_MEMBER_STATES } from '../cra/member-states';

const memberState = z
  .string()
  .trim()
  .toUpperCase()
  .pipe(z.enum(EU_MEMBER_STATES, { error: 'must be the ISO 3166-1 alpha-2 code of an EU Member State, e.g. DE' }));

/** Team setting `cra`: the manufacturer's details the CRA reports carry (docs/cra-reporting.md "Scope"). */
export const craSettingsBody = z
  .strictObject({
    manufacturerName: oneLine(z.string().trim().min(1).max(255)).optional(),
    contact: oneLine(z.string().trim().min(1).max(500)).optional(),
    mainEstablishment: memberState.nullable().optional(),
    memberStates: z
      .array(memberState)
      .max(EU_MEMBER_STATES.length)
      .transform((states) => [...new Set(states)].sort())
      .optional(),
  })
  .meta({ id: 'UpdateCraSettings' });

export const craSettingsSchema = z
  .object({
    manufacturerName: z.string(),
    contact: z.string(),
    mainEstablishment: z.enum(EU_MEMBER_STATES).nullable(),
    memberStates: z.array(z.enum(EU_MEMBER_STATES)),
  })
  .meta({ id: 'CraSettings' });
