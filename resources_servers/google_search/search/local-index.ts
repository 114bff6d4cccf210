/**
 * The offline backend: a corpus file (JSONL, one page a line: `url`, `title`, and `text` or `html`) indexed
 * in memory with MiniSearch and ranked by BM25. `search` answers in Google's Custom Search shape so the model
 * reads the same fields whichever backend runs; `browse` reads pages from the same corpus.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import MiniSearch, { type Options as MiniSearchOptions } from 'minisearch';
import { ConfigError } from 'ngym';
import * as z from 'zod';
import type { Page, SearchBackend } from './backend.ts';
import { htmlToPageText } from './page-text.ts';

const CorpusPage = z
  .strictObject({
    url: z.url({ protocol: /^https?$/ }),
    title: z.string(),
    text: z.string().optional(),
    html: z.string().optional(),
  })
  .refine((page) => (page.text === undefined) !== (page.html === undefined), 'a page has exactly one of "text" and "html"');

export interface LocalIndexOptions {
  corpusPath: string;
  maxResults: number;
  /** Characters of a page's HTML that are read (the rest is ignored). */
  maxHtmlCharacters: number;
  /** BM25 parameters; `d` > 0 is BM25+ (MiniSearch's default), 0 is plain BM25. */
  bm25: { k: number; b: number; d: number };
  /** Where the built index is saved, and loaded from at the next start while the pages are the same. */
  indexPath?: string | null;
}

interface IndexedPage {
  url: string;
  title: string;
  text: string;
}

const SNIPPET_CHARACTERS = 200;
const SNIPPET_LEAD = 60;

/** A URL as looked up: no fragment, no trailing slash (the same page however the model writes it). */
function pageKey(url: string): string {
  return url.replace(/#.*$/s, '').replace(/\/+$/, '');
}

/** Google's `displayLink`: the host. */
function hostOf(url: string): string {
  return new URL(url).host;
}

/** Reads and checks the corpus; a bad line is an error naming the file, the line and the field. */
function readCorpus(path: string, maxHtmlCharacters: number): IndexedPage[] {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('NGYM_CONFIG_FILE', `Cannot read the search corpus ${path}: ${(error as Error).message}`, { key: 'corpus_jsonl_fpath' });
  }
  const pages: IndexedPage[] = [];
  const lineOf = new Map<string, number>();
  content.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${path} line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new ConfigError('NGYM_CONFIG_FILE', `${where} is not JSON: ${(error as Error).message}`, { key: 'corpus_jsonl_fpath' });
    }
    const parsed = CorpusPage.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'page'}: ${issue.message}`).join('; ');
      throw new ConfigError('NGYM_CONFIG_FILE', `${where} is not a corpus page (${issues}).`, { key: 'corpus_jsonl_fpath' });
    }
    const { url, title, text, html } = parsed.data;
    const key = pageKey(url);
    const earlier = lineOf.get(key);
    if (earlier !== undefined) throw new ConfigError('NGYM_CONFIG_FILE', `${where}: the URL ${url} is already the page of line ${earlier}.`, { key: 'corpus_jsonl_fpath' });
    lineOf.set(key, index + 1);
    pages.push({ url, title, text: text ?? htmlToPageText(html as string, maxHtmlCharacters) });
  });
  if (pages.length === 0) throw new ConfigError('NGYM_CONFIG_FILE', `The search corpus ${path} has no pages.`, { key: 'corpus_jsonl_fpath' });
  return pages;
}

/** About 200 characters of the page around the first query term it contains, as Google's snippet. */
function snippet(text: string, terms: string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const positions = terms.map((term) => lower.indexOf(term)).filter((position) => position >= 0);
  let start = positions.length === 0 ? 0 : Math.max(0, Math.min(...positions) - SNIPPET_LEAD);
  if (start > 0) start = flat.indexOf(' ', start) + 1;
  let end = Math.min(flat.length, start + SNIPPET_CHARACTERS);
  if (end < flat.length) end = Math.max(start + 1, flat.lastIndexOf(' ', end));
  return `${start > 0 ? '... ' : ''}${flat.slice(start, end).trim()}${end < flat.length ? ' ...' : ''}`;
}

type Index = MiniSearch<IndexedPage & { id: number }>;

/** Bump when what is indexed or how changes (fields, tokenizer): indexes saved before are then rebuilt. */
const SAVED_INDEX_FORMAT = 1;

/** What the index was built from: the pages as indexed (so the corpus, and how its HTML was converted). */
function fingerprint(pages: IndexedPage[]): string {
  const hash = createHash('sha256');
  for (const page of pages) hash.update(JSON.stringify([page.url, page.title, page.text])).update('\n');
  return hash.digest('hex');
}

/** The saved index, when it was built from exactly these pages; null when missing, stale or unreadable (it is only a cache). */
function loadSavedIndex(path: string, pagesFingerprint: string, options: MiniSearchOptions): Index | null {
  if (!existsSync(path)) return null;
  try {
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { format?: unknown; fingerprint?: unknown; index?: unknown };
    if (saved.format !== SAVED_INDEX_FORMAT || saved.fingerprint !== pagesFingerprint) return null;
    return MiniSearch.loadJS(saved.index as ReturnType<Index['toJSON']>, options);
  } catch {
    return null;
  }
}

function saveIndex(path: string, pagesFingerprint: string, index: Index): void {
  // Written aside, then renamed: a server starting meanwhile never reads half a file.
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify({ format: SAVED_INDEX_FORMAT, fingerprint: pagesFingerprint, index }));
    renameSync(temporary, path);
  } catch (error) {
    throw new ConfigError('NGYM_CONFIG_FILE', `Cannot save the search index to ${path}: ${(error as Error).message}`, { key: 'index_fpath' });
  }
}

export class LocalIndexBackend implements SearchBackend {
  private readonly pages: IndexedPage[];
  private readonly byUrl: Map<string, IndexedPage>;
  private readonly index: Index;
  /** Whether the index came from `indexPath` rather than being built. */
  readonly loadedSavedIndex: boolean;

  constructor(private readonly options: LocalIndexOptions) {
    this.pages = readCorpus(options.corpusPath, options.maxHtmlCharacters);
    this.byUrl = new Map(this.pages.map((page) => [pageKey(page.url), page]));
    const indexOptions: MiniSearchOptions = {
      fields: ['title', 'text'],
      searchOptions: { boost: { title: 2 }, bm25: options.bm25, combineWith: 'OR' },
    };
    const pagesFingerprint = options.indexPath ? fingerprint(this.pages) : '';
    const saved = options.indexPath ? loadSavedIndex(options.indexPath, pagesFingerprint, indexOptions) : null;
    this.loadedSavedIndex = saved !== null;
    if (saved !== null) {
      this.index = saved;
    } else {
      this.index = new MiniSearch(indexOptions);
      this.index.addAll(this.pages.map((page, id) => ({ ...page, id })));
      if (options.indexPath) saveIndex(options.indexPath, pagesFingerprint, this.index);
    }
  }

  get size(): number {
    return this.pages.length;
  }

  async search(query: string) {
    const ranked = this.index.search(query).sort((a, b) => b.score - a.score || (a.id as number) - (b.id as number));
    const terms = (MiniSearch.getDefault('tokenize') as (text: string) => string[])(query.toLowerCase()).filter((term) => term.length > 1);
    const total = String(ranked.length);
    const items = ranked.slice(0, this.options.maxResults).map((result) => {
      const page = this.pages[result.id as number] as IndexedPage;
      return { kind: 'customsearch#result', title: page.title, link: page.url, displayLink: hostOf(page.url), snippet: snippet(page.text, terms), formattedUrl: page.url };
    });
    return {
      kind: 'customsearch#search',
      queries: { request: [{ title: `Local index - ${query}`, totalResults: total, searchTerms: query, count: this.options.maxResults, startIndex: 1 }] },
      searchInformation: { totalResults: total, formattedTotalResults: ranked.length.toLocaleString('en-US') },
      // Google leaves `items` out when nothing matched.
      ...(items.length > 0 ? { items } : {}),
    };
  }

  async fetchPage(url: string): Promise<Page | null> {
    const page = this.byUrl.get(pageKey(url));
    return page === undefined ? null : { text: page.text };
  }

  async close(): Promise<void> {}
}
