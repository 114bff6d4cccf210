/**
 * google_search: multiple-choice questions answered with a `search` tool and a `browse` tool. The reward is
 * 1.0 when the first `\boxed{...}` of the final assistant message holds the expected option, as upstream
 * (see boxed-option.ts for upstream's exact rule).
 *
 * The tools run on one of two backends (search/): Google Programmable Search and the live web, as upstream,
 * or a local BM25 index over a corpus file, which needs no network. When the backend fails (down, over
 * quota, timing out), the model reads upstream's error text, and the rollout is recorded as failed at verify
 * instead of being scored: the model could not search, so its reward says nothing about it.
 */
import { fileURLToPath } from 'node:url';
import { ConfigError, defineResourcesServer, describeError, NgymError, SessionStore } from 'ngym';
import { pythonJsonDumps } from 'ngym/python-compat';
import * as z from 'zod';
import { parsedOption } from './boxed-option.ts';
import { QueryRefusedError, type SearchBackend } from './search/backend.ts';
import { GOOGLE_SEARCH_URL, GoogleSearchBackend } from './search/google.ts';
import { LocalIndexBackend } from './search/local-index.ts';
import { htmlToPageText, truncatePageText } from './search/page-text.ts';

/** The corpus the environment ships: its example tasks are answerable from it. */
export const BUNDLED_CORPUS = fileURLToPath(new URL('./data/corpus.jsonl', import.meta.url));

const config = {
  /** `google` (upstream's: Google Custom Search and the live web) or `local_index` (the corpus file, offline). */
  search_backend: z.enum(['google', 'local_index']).default('google'),
  google_api_key: z.string().nullish(),
  google_cx: z.string().nullish(),
  google_search_url: z.url().default(GOOGLE_SEARCH_URL),
  search_timeout_seconds: z.number().positive().default(10),
  /** Retries of a search Google answers 429 or 5xx (a short backoff), before it counts as a backend failure. */
  search_retries: z.number().int().min(0).default(2),
  browse_timeout_seconds: z.number().positive().default(30),
  /** Pages (and a corpus page's HTML) beyond this size are not read; trafilatura's own limit is 20 MB. */
  browse_max_page_bytes: z.number().int().positive().default(20_000_000),
  /** The local index's corpus (JSONL: url, title, text or html); default the bundled one. */
  corpus_jsonl_fpath: z.string().min(1).nullish(),
  /** Where the local index is saved once built, and loaded from at the next start while the corpus is the same. */
  index_fpath: z.string().min(1).nullish(),
  max_results: z.number().int().min(1).max(100).default(10),
  /** BM25 parameters of the local index; `d` > 0 makes it BM25+. */
  bm25: z.strictObject({ k: z.number().positive(), b: z.number().min(0).max(1), d: z.number().min(0) }).default({ k: 1.2, b: 0.75, d: 0 }),
  /** `fail_rollout`: a backend failure fails the rollout at verify; `tell_model`: only the model is told (upstream). */
  on_backend_error: z.enum(['fail_rollout', 'tell_model']).default('fail_rollout'),
};

/** The messages of the backend failures of each rollout, by session. */
type Failures = SessionStore<string[]>;

/** The error's message for the model; with `fail_rollout`, a backend failure is also kept to fail the rollout at verify. */
function backendError(error: unknown, context: { sessionId: string; state: { failures: Failures }; config: { on_backend_error: string } }): string {
  const message = describeError(error);
  if (context.config.on_backend_error === 'fail_rollout' && !(error instanceof QueryRefusedError)) context.state.failures.getOrCreate(context.sessionId, () => []).push(message);
  return message;
}

export default defineResourcesServer({
  className: 'GoogleSearchResourcesServer',
  config,
  setup: ({ config, logger }) => {
    let backend: SearchBackend;
    if (config.search_backend === 'google') {
      for (const key of ['google_api_key', 'google_cx'] as const) {
        if (!config[key]) {
          throw new ConfigError('NGYM_CONFIG_MISSING_VALUE', `${config.name}: search_backend 'google' needs ${key} (put it in env.yaml), or set search_backend: local_index.`, { key });
        }
      }
      backend = new GoogleSearchBackend({
        apiKey: config.google_api_key as string,
        cx: config.google_cx as string,
        endpoint: config.google_search_url,
        timeoutMs: config.search_timeout_seconds * 1000,
        retries: config.search_retries,
        maxPageBytes: config.browse_max_page_bytes,
        pageTimeoutMs: config.browse_timeout_seconds * 1000,
      });
    } else {
      const corpusPath = config.corpus_jsonl_fpath ?? BUNDLED_CORPUS;
      const index = new LocalIndexBackend({
        corpusPath,
        maxResults: config.max_results,
        maxHtmlCharacters: config.browse_max_page_bytes,
        bm25: config.bm25,
        indexPath: config.index_fpath,
      });
      if (config.google_api_key) logger.warn('google_api_key is set but search_backend is local_index: searching the corpus, not Google.');
      logger.info({ pages: index.size, corpus: corpusPath, saved_index: config.index_fpath ?? null, loaded_saved_index: index.loadedSavedIndex }, 'search backend: local index');
      backend = index;
    }
    return { backend, failures: new SessionStore<string[]>() };
  },
  close: ({ backend }) => backend.close(),
  seedSession: (_request, { sessionId, state }) => {
    state.failures.delete(sessionId);
    return {};
  },
  tools: {
    search: {
      description: 'Search Google for a query and return up to 10 search results.',
      parameters: z.strictObject({ query: z.string().describe('The term to search for') }),
      handler: async ({ query }, context) => {
        try {
          // Upstream's tool answers `json.dumps` of Google's JSON: ASCII-only, Python's separators.
          return { search_results: pythonJsonDumps(await context.state.backend.search(query)) };
        } catch (error) {
          return { search_results: `Error: Unexpected error - ${backendError(error, context)}` };
        }
      },
    },
    browse: {
      description: 'Returns the cleaned content of a webpage. If the page is too long, it will be truncated to 10,000 words.',
      parameters: z.strictObject({ url: z.string().describe('The url of the page to get the content of') }),
      handler: async ({ url }, context) => {
        try {
          const page = await context.state.backend.fetchPage(url);
          if (page === null) return { page_content: 'No HTML found' };
          const text = page.text ?? htmlToPageText(page.html ?? '', context.config.browse_max_page_bytes);
          return { page_content: text === '' ? 'No text found' : truncatePageText(text) };
        } catch (error) {
          return { page_content: `Error: Unexpected error = ${backendError(error, context)}` };
        }
      },
    },
  },
  // Upstream requires task_difficulty_qwen3_32b_avg_8 and never reads it; rows without it are accepted here.
  verifyRequest: z.looseObject({ expected_answer: z.string(), task_difficulty_qwen3_32b_avg_8: z.number().nullish() }),
  verify: (request, { sessionId, state }) => {
    const failures = state.failures.get(sessionId);
    if (failures !== undefined && failures.length > 0) {
      throw new NgymError('NGYM_UPSTREAM_STATUS', `The search backend failed during this rollout, so it is not scored: ${failures.join('; ')}`, { status: 502, retryable: true });
    }
    const option = parsedOption(request.response.output);
    return { reward: option !== null && option === request.expected_answer ? 1.0 : 0.0, parsed_option: option };
  },
});
