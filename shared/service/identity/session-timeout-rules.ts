/**
 * The rules of a team's browser-session timeouts, free of zod and the table: the authorizer reads
 * them on every cookie request (shared/service/identity/session-timeouts.ts), and the settings schema
 * (shared/service/schemas/compliance.ts) validates against the same bounds, without either pulling in the other.
 */
export interface SessionTimeouts {
  /** Minutes without a request after which a browser session ends. */
  idleMinutes: number;
  /** Minutes from sign-in after which a browser session ends however active. */
  absoluteMinutes: number;
}

/**
 * Idle: 5 minutes (shorter logs people out while they read a findings table) to 24 hours. Absolute:
 * 1 hour to 30 days (OWASP's session guidance: a bound even for low-risk applications, in days rather
 * than months).
 */
export const SESSION_TIMEOUT_BOUNDS = {
  idleMinutes: { min: 5, max: 24 * 60 },
  absoluteMinutes: { min: 60, max: 30 * 24 * 60 },
} as const;

/** The defaults: 8 hours idle, 7 days absolute. */
export const DEFAULT_SESSION_TIMEOUTS: SessionTimeouts = { idleMinutes: 8 * 60, absoluteMinutes: 7 * 24 * 60 };
