/**
 * Typed errors shared by domain services and handlers. Each carries the HTTP
 * status and a stable machine-readable code; the error mapper exposes the
 * message only for statuses below 500.
 */
export type ErrorDetail = { path: string; message: string; code?: string };

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(400, 'bad_request', message, details);
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details: ErrorDetail[]) {
    super(422, 'validation_failed', message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'A valid API key is required: send "Authorization: Bearer vxd_<64 hex>".') {
    super(401, 'unauthorized', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

export class NotFoundError extends AppError {
  constructor(entity: string) {
    super(404, 'not_found', `${entity} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code = 'conflict', details?: ErrorDetail[]) {
    super(409, code, message, details);
  }
}

/** The VEX document holding a release's lock, as far as the thrower knows it. */
export type ReleaseLock = { vexId: string; status?: string | undefined };

export class ReleaseLockedError extends ConflictError {
  /**
   * Names the document that holds the lock (and its workflow status) when known, so the client
   * knows what to reject or unlock (shared/service/releases/release-lock.ts looks it up).
   */
  constructor(lock?: ReleaseLock) {
    super(
      lock
        ? `The release is locked by VEX document ${lock.vexId}${lock.status ? ` (${lock.status})` : ''}; reject that document or unlock the release first`
        : 'The release is locked by a VEX document in submitted, approved or published state',
      'release_locked',
      lock
        ? [{ path: 'locked_by_vex_id', message: lock.vexId, ...(lock.status ? { code: lock.status } : {}) }]
        : undefined,
    );
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super(413, 'payload_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string) {
    super(415, 'unsupported_media_type', message);
  }
}

export class UnprocessableContentError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(422, 'unprocessable_content', message, details);
  }
}

/** A dependency outside the service (an OIDC issuer) failed: the client may retry later. Its message is shown. */
export class ServiceUnavailableError extends AppError {
  constructor(code: string, message: string) {
    super(503, code, message);
  }
}

export class NotImplementedError extends AppError {
  constructor(message: string) {
    super(501, 'not_implemented', message);
  }
}
