import { AppError, type ErrorDetail } from '../../errors';

export type VexGenerationErrorCode =
  /** The input does not match `vexGenerationInputSchema`. */
  | 'vex_invalid_input'
  /** A finding points at a component ref that is not in `components`. */
  | 'vex_unknown_component'
  /** OpenVEX (`statements` minItems 1) and CSAF VEX (test 6.1.27.11) cannot express "no vulnerabilities". */
  | 'vex_no_statements';

/** 422: the request was understood but this release's data cannot be turned into the requested document. */
export class VexGenerationError extends AppError {
  constructor(
    readonly vexCode: VexGenerationErrorCode,
    message: string,
    details?: ErrorDetail[],
  ) {
    super(422, vexCode, message, details);
  }
}
