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
  constructor(message: string, code = 'conflict') {
    super(409, code, message);
  }
}

export class ReleaseLockedError extends ConflictError {
  constructor() {
    super('The release is locked by a VEX document in submitted, approved or published state', 'release_locked');
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super(413, 'payload_too_large', message);
  }
}

export class UnprocessableContentError extends AppError {
  constructor(message: string, details?: ErrorDetail[]) {
    super(422, 'unprocessable_content', message, details);
  }
}

export class NotImplementedError extends AppError {
  constructor(message: string) {
    super(501, 'not_implemented', message);
  }
}
