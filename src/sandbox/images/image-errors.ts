import { NgymError } from '../../errors.ts';

/**
 * What went wrong with an image: the engine cannot be reached, the image is on neither the engine nor a reachable
 * registry, a build or pull failed, or a tool a build needs is missing. Only an unreachable engine may heal on
 * a retry.
 */
export type SandboxImageFailure = 'engine_unreachable' | 'engine_failed' | 'image_missing' | 'pull_failed' | 'build_failed' | 'tool_missing' | 'bad_input';

export class SandboxImageError extends NgymError {
  readonly failure: SandboxImageFailure;

  constructor(failure: SandboxImageFailure, message: string, cause?: unknown) {
    super(failure === 'bad_input' ? 'NGYM_USAGE' : 'NGYM_SANDBOX', message, { retryable: failure === 'engine_unreachable', status: failure === 'bad_input' ? 400 : 503, cause });
    this.failure = failure;
  }
}
