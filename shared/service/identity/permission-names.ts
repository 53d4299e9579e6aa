/** Plain constants of identity, kept free of data access so the route schemas (and the openapi bundle) can import them. */

/**
 * A member's permissions; what each lets a browser session do is the table in shared/service/identity/member-scopes.ts
 * (docs/sign-in.md "Roles and scopes"). `settings.manage` is the spec's (rule 7: keys, members, settings).
 */
export const PERMISSIONS = ['settings.manage', 'content.write'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Spec "API key": optional expiry of 30, 90, 180 or 365 days. */
export const EXPIRY_CHOICES_DAYS = [30, 90, 180, 365] as const;
