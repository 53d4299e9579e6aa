import * as z from 'zod';
import { dataEnvelope } from './common';

/** `GET /api/me`: what a credential is, so a client can check it before it acts (docs/api.md "Who am I"). */
export const meSchema = z
  .object({
    team: z.object({
      id: z.uuid().meta({ description: "The team; also the audit export's `accountId`" }),
      name: z.string(),
    }),
    caller: z.object({
      id: z.string(),
      name: z.string(),
      type: z.enum(['service_account', 'member', 'workload']).meta({
        description: '`workload`: a CI job signed in through an OIDC trust policy (docs/oidc.md); `id` is the policy',
      }),
    }),
    scopes: z.array(z.string()),
    key: z.object({
      id: z.string(),
      name: z.string(),
      expiresAt: z.string().nullable().meta({ description: 'null: the key does not expire' }),
    }),
    session: z
      .object({
        csrfToken: z.string().meta({
          description:
            'Send as `X-CSRF-Token` on every state-changing request made with the session cookie (docs/sign-in.md)',
        }),
        email: z.string(),
      })
      .optional()
      .meta({ description: 'Only for a browser session (`caller.type` member); `key` then describes the session' }),
  })
  .meta({ id: 'Me' });
export type MeView = z.infer<typeof meSchema>;

export const meResponse = dataEnvelope(meSchema, 'MeResponse');
