/**
 * The local index itself: BM25's length normalization and inverse document frequency decide the order
 * (and the `bm25` parameters take effect), and a saved index is loaded only while the pages are the same.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalIndexBackend, type LocalIndexOptions } from './local-index.ts';

const BM25 = { k: 1.2, b: 0.75, d: 0 };
const filler = (count: number) => Array.from({ length: count }, (_, index) => `filler${index}`).join(' ');

function corpus(pages: { url: string; title?: string; text: string }[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'ngym-local-index-'));
  const path = join(dir, 'corpus.jsonl');
  writeFileSync(path, pages.map((page) => JSON.stringify({ title: '', ...page })).join('\n'));
  return path;
}

function open(corpusPath: string, options: Partial<LocalIndexOptions> = {}) {
  return new LocalIndexBackend({ corpusPath, maxResults: 10, maxHtmlCharacters: 1_000_000, bm25: BM25, ...options });
}

async function links(backend: LocalIndexBackend, query: string): Promise<string[]> {
  const results = (await backend.search(query)) as { items?: { link: string }[] };
  return (results.items ?? []).map((item) => item.link);
}

describe('local index ranking', () => {
  it('normalizes by length with b > 0, and not with b = 0 (ties keep file order)', async () => {
    const path = corpus([
      { url: 'https://a.example/long', text: `lake ${filler(60)}` },
      { url: 'https://a.example/short', text: `lake ${filler(3)}` },
    ]);
    expect(await links(open(path), 'lake')).toEqual(['https://a.example/short', 'https://a.example/long']);
    expect(await links(open(path, { bm25: { ...BM25, b: 0 } }), 'lake')).toEqual(['https://a.example/long', 'https://a.example/short']);
  });

  it('weighs a rare term above repetitions of a common one', async () => {
    const path = corpus([
      { url: 'https://a.example/common', text: 'island island island harbour' },
      { url: 'https://a.example/rare', text: 'island volcano harbour quay' },
      { url: 'https://a.example/other', text: 'island market harbour quay' },
    ]);
    expect((await links(open(path), 'island volcano'))[0]).toBe('https://a.example/rare');
  });

  it('caps the results at max_results and counts them all', async () => {
    const path = corpus(Array.from({ length: 15 }, (_, index) => ({ url: `https://a.example/${index}`, text: `lake ${filler(index)}` })));
    const results = (await open(path, { maxResults: 4 }).search('lake')) as { items: unknown[]; searchInformation: { totalResults: string } };
    expect(results.items).toHaveLength(4);
    expect(results.searchInformation.totalResults).toBe('15');
  });
});

describe('local index saved to index_fpath', () => {
  it('is built and saved once, then loaded while the corpus is unchanged, and rebuilt when it changes', async () => {
    const path = corpus([{ url: 'https://a.example/1', text: 'lake siln' }, { url: 'https://a.example/2', text: 'port teskin' }]);
    const indexPath = join(mkdtempSync(join(tmpdir(), 'ngym-saved-index-')), 'index.json');
    const first = open(path, { indexPath });
    expect(first.loadedSavedIndex).toBe(false);
    expect(statSync(indexPath).size).toBeGreaterThan(0);

    const second = open(path, { indexPath });
    expect(second.loadedSavedIndex).toBe(true);
    expect(await second.search('teskin')).toEqual(await first.search('teskin'));

    writeFileSync(path, `${readFileSync(path, 'utf8')}\n${JSON.stringify({ url: 'https://a.example/3', title: 'Teskin', text: 'teskin lighthouse' })}`);
    const changed = open(path, { indexPath });
    expect(changed.loadedSavedIndex).toBe(false);
    expect(await links(changed, 'lighthouse')).toEqual(['https://a.example/3']);
    expect(open(path, { indexPath }).loadedSavedIndex).toBe(true);
  });

  it('rebuilds over an unreadable saved index, and names index_fpath when it cannot save', () => {
    const path = corpus([{ url: 'https://a.example/1', text: 'lake siln' }]);
    const dir = mkdtempSync(join(tmpdir(), 'ngym-saved-index-'));
    const indexPath = join(dir, 'index.json');
    writeFileSync(indexPath, '{"format": 1, "fingerprint": ');
    expect(open(path, { indexPath }).loadedSavedIndex).toBe(false);
    expect(open(path, { indexPath }).loadedSavedIndex).toBe(true);

    expect(() => open(path, { indexPath: join(dir, 'missing-folder', 'index.json') })).toThrow(/Cannot save the search index to .*missing-folder\/index\.json/);
  });
});
