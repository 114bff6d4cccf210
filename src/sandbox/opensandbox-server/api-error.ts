/** A refusal of ngym's OpenSandbox-compatible server, answered as OpenSandbox's ErrorResponse `{code, message}`. */
import { NgymError } from '../../errors.ts';

export class OpenSandboxApiError extends NgymError {
  constructor(
    readonly httpStatus: number,
    /** OpenSandbox's error code (`INVALID_PARAMETER`, `SANDBOX_NOT_FOUND`, ...). */
    readonly apiCode: string,
    message: string,
  ) {
    super('NGYM_SANDBOX', message, { status: httpStatus });
  }
}
