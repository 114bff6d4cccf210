/**
 * The one interface the `search` and `browse` tools use, whichever backend the config chooses: Google
 * Programmable Search with the live web (upstream's), or a local BM25 index over a corpus file (offline).
 *
 * A backend that cannot answer (Google down, over quota, timed out) throws an `UpstreamError`: the tool
 * then tells the model as upstream does, and the rollout is recorded as failed instead of being scored.
 * A page that does not exist is not a failure: `fetchPage` answers null and the model reads upstream's
 * "No HTML found"; nor is a query the backend refuses (`QueryRefusedError`).
 */
/** The backend refused the query itself (Google's HTTP 400: an empty or malformed query): the model's mistake, told to it, not a failure. */
export class QueryRefusedError extends Error {
  override name = 'QueryRefusedError';
}

export interface Page {
  /** The page's HTML, converted to text by `browse`. */
  html?: string;
  /** Or its text, used as it is. */
  text?: string;
}

export interface SearchBackend {
  /** A JSON object in Google's Custom Search shape (`items[{title, link, snippet...}]`, no `items` when nothing matched). */
  search(query: string): Promise<unknown>;
  /** The page at `url`, or null when there is none. */
  fetchPage(url: string): Promise<Page | null>;
  close(): Promise<void>;
}
