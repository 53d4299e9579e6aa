import { AppError } from '../errors';

/**
 * The upload is JSON we cannot use as an SBOM. 422 rather than 400: the request
 * itself is well-formed, its `content` is not a supported SBOM.
 */
export class SbomRejectedError extends AppError {
  constructor(readonly reason: string) {
    super(422, 'sbom_rejected', `SBOM rejected: ${reason}`);
  }
}
