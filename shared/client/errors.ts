/**
 * The client CLI's exit codes (docs/ci.md "Exit codes"): other tools script against them,
 * so each failure is a typed error carrying its code, and only `main` turns it into one.
 */
export const EXIT_CODES = { pass: 0, gateFailed: 1, usage: 2, service: 3 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags, a missing URL or credential, an unreadable file: the caller's to fix (exit 2). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.usage);
  }
}

/** The service refused or could not be reached, a scan failed or timed out (exit 3). */
export class ServiceError extends CliError {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly code: string | null = null,
    readonly details: readonly { path?: string; message?: string; code?: string }[] = [],
    readonly requestId: string | null = null,
  ) {
    super(message, EXIT_CODES.service);
  }

  /** `details[0].message` of a 409 naming the holder (`existing_id`), for find-or-create races. */
  existingId(): string | undefined {
    return this.details.find((detail) => detail.path === 'existing_id')?.message;
  }
}
