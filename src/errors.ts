/**
 * One error base class for the whole framework. Every error carries a stable `code` (documented in
 * docs/errors.md), a `retryable` flag that retry loops consult, and an optional HTTP status used when the
 * error crosses an HTTP handler. `NgymError.isInstance` works across duplicated package copies, where
 * `instanceof` would not.
 */
const marker = Symbol.for('ngym.error');

export type NgymErrorCode =
  | 'NGYM_CONFIG_INVALID'
  | 'NGYM_CONFIG_OVERRIDE_SYNTAX'
  | 'NGYM_CONFIG_MISSING_VALUE'
  | 'NGYM_CONFIG_INTERPOLATION'
  | 'NGYM_CONFIG_FILE'
  | 'NGYM_SERVER_NOT_FOUND'
  | 'NGYM_SERVER_START'
  | 'NGYM_SERVER_DIED'
  | 'NGYM_SERVER_OOM_KILLED'
  | 'NGYM_SERVER_HEAP_EXHAUSTED'
  | 'NGYM_HEAD_SERVER_UNREACHABLE'
  | 'NGYM_UPSTREAM_CONNECTION'
  | 'NGYM_UPSTREAM_TIMEOUT'
  | 'NGYM_UPSTREAM_STATUS'
  | 'NGYM_UPSTREAM_REJECTED'
  | 'NGYM_UPSTREAM_BODY'
  | 'NGYM_INVALID_REQUEST'
  | 'NGYM_BODY_TOO_LARGE'
  | 'NGYM_UNAUTHORIZED'
  | 'NGYM_REPLAY_DIVERGENCE'
  | 'NGYM_REPLAY_NO_MATCH'
  | 'NGYM_INPUT_INVALID'
  | 'NGYM_OUTPUT_WRITE'
  | 'NGYM_ROLLOUT_FAILED'
  | 'NGYM_JUDGE_FAILED'
  | 'NGYM_SANDBOX'
  | 'NGYM_ENVIRONMENT_PACKAGE'
  | 'NGYM_EXAMPLES_DIFFER'
  | 'NGYM_INTERNAL'
  | 'NGYM_USAGE';

/** Response header naming the error code of a failed request, so callers can classify failures across hops. */
export const ERROR_CODE_HEADER = 'x-ngym-error-code';

export interface NgymErrorOptions {
  retryable?: boolean;
  status?: number;
  cause?: unknown;
}

export class NgymError extends Error {
  readonly [marker] = true;
  readonly code: NgymErrorCode;
  readonly retryable: boolean;
  /** HTTP status to answer with when this error ends a request handler. */
  readonly status: number;

  constructor(code: NgymErrorCode, message: string, options: NgymErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.status = options.status ?? 500;
  }

  static isInstance(error: unknown): error is NgymError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}

/** A user-facing configuration problem: names the key and the file it came from. */
export class ConfigError extends NgymError {
  readonly key: string | undefined;
  readonly source: string | undefined;

  constructor(
    code: NgymErrorCode,
    message: string,
    options: NgymErrorOptions & { key?: string; source?: string } = {},
  ) {
    super(code, message, options);
    this.key = options.key;
    this.source = options.source;
  }
}

/** A server of the gym could not be started (its port taken, its process gone before it was ready). */
export class ServerStartError extends NgymError {
  constructor(message: string) {
    super('NGYM_SERVER_START', message);
  }
}

/** A call to another server failed: connection, timeout or a non-2xx status. */
export class UpstreamError extends NgymError {
  readonly url: string;
  readonly statusCode: number | undefined;
  readonly responseBody: string | undefined;
  /** The error code the other server reported (its `x-ngym-error-code` header), e.g. a judge failure behind a verify. */
  readonly upstreamCode: string | undefined;

  constructor(
    code: NgymErrorCode,
    message: string,
    options: NgymErrorOptions & { url: string; statusCode?: number; responseBody?: string; upstreamCode?: string },
  ) {
    super(code, message, options);
    this.url = options.url;
    this.statusCode = options.statusCode;
    this.responseBody = options.responseBody;
    this.upstreamCode = options.upstreamCode;
  }
}

/** The most specific error code of a failure: the innermost server's code when it crossed hops. */
export function errorCodeOf(error: unknown): string {
  if (error instanceof UpstreamError && error.upstreamCode !== undefined) return error.upstreamCode;
  return NgymError.isInstance(error) ? error.code : 'NGYM_INTERNAL';
}

/** Short human text of any thrown value, for logs and failure records. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (cause: ${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
