/**
 * The vLLM engines behind one vllm_model server: one per `base_url`, chosen per Gym session so every turn
 * of a rollout (and its `/tokenize` call) reaches the same engine, and called with upstream HEAD's retry
 * rules: rate-limit statuses (429, 502, 503, 504, 520) are retried with a large budget (an engine at
 * capacity answers 503 until a slot frees up), 500 three times in all, connection failures three times in
 * all, anything else not at all.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  backoffMs,
  type HttpClient,
  type HttpResponse,
  NgymError,
  raiseForStatus,
  sharedHttpClient,
  UpstreamError,
} from 'ngym';

const RATE_LIMIT_STATUSES: readonly number[] = [429, 502, 503, 504, 520];

export interface RetryPolicy {
  /** Retries after a 500 (attempts = retries + 1). */
  serverErrorRetries: number;
  /** Retries after a rate-limit status. */
  rateLimitRetries: number;
  /** Retries after a refused or reset connection. */
  connectionRetries: number;
  timeoutMs: number | null;
}

/**
 * Upstream HEAD's rule, `sha256(session id)[:8]` as a big-endian integer modulo the number of engines:
 * stable across processes and restarts, and nothing to remember per session.
 */
export function backendIndexForSession(sessionId: string, count: number): number {
  const digest = createHash('sha256').update(sessionId, 'utf8').digest();
  return Number(digest.readBigUInt64BE(0) % BigInt(count));
}

export class VllmEngine {
  readonly baseUrl: string;
  readonly tokenizeUrl: string;
  private readonly headers: Record<string, string>;

  constructor(
    baseUrl: string,
    apiKey: string,
    defaultHeaders: Record<string, string>,
    private readonly policy: RetryPolicy,
    private readonly http: HttpClient = sharedHttpClient(),
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    // vLLM serves /tokenize beside /v1, not under it.
    this.tokenizeUrl = `${this.baseUrl.replace(/\/v1$/, '')}/tokenize`;
    this.headers = { ...defaultHeaders, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };
  }

  /** The engine's last answer after retries; the caller handles error statuses (a 400 may be a context overflow). */
  chatCompletions(body: unknown, signal?: AbortSignal): Promise<HttpResponse> {
    return this.post(`${this.baseUrl}/chat/completions`, body, signal);
  }

  async tokenize(body: unknown, signal?: AbortSignal): Promise<unknown> {
    return raiseForStatus(await this.post(this.tokenizeUrl, body, signal)).json();
  }

  private async post(url: string, body: unknown, signal: AbortSignal | undefined): Promise<HttpResponse> {
    const serialized = JSON.stringify(body);
    let rateLimited = 0;
    let serverErrors = 0;
    let connectionFailures = 0;
    for (let attempt = 0; ; attempt++) {
      let response: HttpResponse;
      try {
        response = await this.http.request(url, {
          method: 'POST',
          body: serialized,
          headers: { ...this.headers, 'content-type': 'application/json' },
          timeoutMs: this.policy.timeoutMs,
          connectionRetries: 0,
          signal,
        });
      } catch (error) {
        const refused = NgymError.isInstance(error) && error.code === 'NGYM_UPSTREAM_CONNECTION';
        if (!refused || connectionFailures >= this.policy.connectionRetries || signal?.aborted) {
          if (refused && error instanceof UpstreamError) {
            throw new UpstreamError('NGYM_UPSTREAM_CONNECTION', `Could not reach the vLLM engine at ${url} after ${connectionFailures + 1} attempts: ${error.message}`, {
              url,
              retryable: true,
              cause: error,
            });
          }
          throw error;
        }
        connectionFailures++;
        await sleep(backoffMs(attempt), undefined, { signal });
        continue;
      }
      const retry =
        (RATE_LIMIT_STATUSES.includes(response.status) && rateLimited++ < this.policy.rateLimitRetries) ||
        (response.status === 500 && serverErrors++ < this.policy.serverErrorRetries);
      if (!retry) return response;
      await sleep(backoffMs(attempt), undefined, { signal });
    }
  }
}
