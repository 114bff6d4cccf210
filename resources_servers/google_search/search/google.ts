/**
 * The Google backend, as upstream: `search` asks the Custom Search JSON API (Programmable Search Engine)
 * with the configured key and engine id; `browse` fetches the live page. The API key is never in an error
 * message: upstream's errors print the request URL, key included, into the model's context.
 */
import { Agent, interceptors, request as undiciRequest } from 'undici';
import { NgymError, RETRY_STATUSES, sharedHttpClient, UpstreamError } from 'ngym';
import { pythonJsonLoadsWithFloats } from 'ngym/python-compat';
import { type Page, QueryRefusedError, type SearchBackend } from './backend.ts';

export const GOOGLE_SEARCH_URL = 'https://www.googleapis.com/customsearch/v1';

export interface GoogleBackendOptions {
  apiKey: string;
  cx: string;
  /** The API's URL (a stand-in server in tests). */
  endpoint: string;
  /** Upstream waits 10 s for Google. */
  timeoutMs: number;
  /** Retries, with backoff, of a search Google answered 429 or 5xx (upstream makes none). */
  retries: number;
  /** A page larger than this is not read ("No HTML found", as trafilatura's size limit). */
  maxPageBytes: number;
  pageTimeoutMs: number;
}

/** Google's own explanation in an error body (`{"error": {"message": ...}}`), else the start of the body. */
function googleErrorMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: show the text
  }
  return text.slice(0, 300);
}

export class GoogleSearchBackend implements SearchBackend {
  private readonly pages: Agent;
  private readonly pageDispatcher: ReturnType<Agent['compose']>;

  constructor(private readonly options: GoogleBackendOptions) {
    this.pages = new Agent({
      maxResponseSize: options.maxPageBytes,
      headersTimeout: options.pageTimeoutMs,
      bodyTimeout: options.pageTimeoutMs,
      connect: { timeout: options.pageTimeoutMs },
    });
    this.pageDispatcher = this.pages.compose(interceptors.redirect({ maxRedirections: 5 }));
  }

  private redact(text: string): string {
    return text.replaceAll(this.options.apiKey, '<google_api_key>').replaceAll(encodeURIComponent(this.options.apiKey), '<google_api_key>');
  }

  async search(query: string): Promise<unknown> {
    const { endpoint, apiKey, cx, timeoutMs } = this.options;
    const url = `${endpoint}?${new URLSearchParams({ key: apiKey, cx, q: query })}`;
    let response;
    try {
      response = await sharedHttpClient().request(url, { method: 'GET', timeoutMs, connectionRetries: 1, retryStatuses: RETRY_STATUSES, statusRetries: this.options.retries });
    } catch (error) {
      if (!NgymError.isInstance(error)) throw error;
      throw new UpstreamError(error.code, `Google search: ${this.redact(error.message)}`, { url: endpoint, retryable: error.retryable });
    }
    if (response.status === 400) throw new QueryRefusedError(`Google search answered HTTP 400: ${this.redact(googleErrorMessage(response.text))}`);
    if (!response.ok) {
      throw new UpstreamError('NGYM_UPSTREAM_STATUS', `Google search answered HTTP ${response.status}: ${this.redact(googleErrorMessage(response.text))}`, {
        url: endpoint,
        statusCode: response.status,
        retryable: response.status === 429 || response.status >= 500,
      });
    }
    try {
      // Floats stay floats, so the model reads `json.dumps` of them as upstream (`"searchTime": 1.0`).
      return pythonJsonLoadsWithFloats(response.text);
    } catch (error) {
      throw new UpstreamError('NGYM_UPSTREAM_BODY', `Google search answered HTTP ${response.status} with a body that is not JSON: ${(error as Error).message}`, {
        url: endpoint,
        statusCode: response.status,
        retryable: true,
      });
    }
  }

  /** The live page, or null when it cannot be had (trafilatura's `fetch_url` gives None the same way). */
  async fetchPage(url: string): Promise<Page | null> {
    if (!/^https?:\/\//i.test(url)) return null;
    try {
      const response = await undiciRequest(url, {
        dispatcher: this.pageDispatcher,
        headers: { 'user-agent': 'ngym google_search browse', accept: 'text/html,*/*;q=0.5' },
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        return null;
      }
      return { html: await response.body.text() };
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    await this.pages.close();
  }
}
