import { AppError } from '../errors';

/**
 * The uploaded file is not an SBOM we can read (docs/sbom-formats.md lists the accepted
 * formats). 422 rather than 400: the request itself is well-formed, its `content` is not.
 */
export class SbomRejectedError extends AppError {
  constructor(readonly reason: string) {
    super(422, 'sbom_rejected', `SBOM rejected: ${reason}`);
  }
}
