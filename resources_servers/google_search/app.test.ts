/**
 * google_search on the offline backend, through its HTTP surface: the tool schemas, BM25 ranking on the
 * shipped corpus, browse (HTML to text, upstream's length cut, the size limit), corpus errors, and the
 * verify rule.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResponseItem, sharedHttpClient } from 'ngym';
import {
  assistantMessage,
  functionCall,
  type InProcessGym,
  modelResponse,
  readJsonlRows,
  SHARED_SKIP_MESSAGE,
  sharedFixture,
  sharedFixturesAvailable,
  startInProcessGym,
} from 'ngym/testing';
import definition from './app.ts';

const http = sharedHttpClient();
const WIKI = 'https://orsola.example.org/wiki/';

function localGym(config: Record<string, unknown> = {}): Promise<InProcessGym> {
  return startInProcessGym({ config: { google_search: { resources_servers: { google_search: { entrypoint: 'app.ts', domain: 'agent', search_backend: 'local_index', ...config } } } } });
}

async function tool(gym: InProcessGym, name: string, body: unknown) {
  const reply = await http.request(gym.url('google_search', `/${name}`), { body });
  return { status: reply.status, text: reply.text, body: reply.json<Record<string, any>>() };
}

/** The tool's `search_results`, decoded (it is `json.dumps` of the Google-shaped answer). */
async function search(gym: InProcessGym, query: string) {
  const { status, body } = await tool(gym, 'search', { query });
  expect(status).toBe(200);
  return JSON.parse(body.search_results as string) as { items?: { title: string; link: string; displayLink: string; snippet: string }[]; searchInformation: { totalResults: string } };
}

const browse = async (gym: InProcessGym, url: string) => (await tool(gym, 'browse', { url })).body.page_content as string;

function corpusFile(pages: Record<string, unknown>[] | string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ngym-google-search-')), 'corpus.jsonl');
  writeFileSync(path, typeof pages === 'string' ? pages : pages.map((page) => JSON.stringify(page)).join('\n'));
  return path;
}

describe('google_search tools', () => {
  it('defines search and browse with the schemas of upstream rows', () => {
    const tools = definition.toolDefinitions();
    expect(tools).toEqual([
      {
        type: 'function',
        name: 'search',
        description: 'Search Google for a query and return up to 10 search results.',
        parameters: { type: 'object', properties: { query: { type: 'string', description: 'The term to search for' } }, required: ['query'], additionalProperties: false },
        strict: true,
      },
      {
        type: 'function',
        name: 'browse',
        description: 'Returns the cleaned content of a webpage. If the page is too long, it will be truncated to 10,000 words.',
        parameters: { type: 'object', properties: { url: { type: 'string', description: 'The url of the page to get the content of' } }, required: ['url'], additionalProperties: false },
        strict: true,
      },
    ]);
  });

  it.skipIf(!sharedFixturesAvailable())("equal the tools of upstream's example rows", () => {
    for (const row of readJsonlRows(sharedFixture('google_search', 'example.jsonl'))) expect(row.responses_create_params.tools).toEqual(definition.toolDefinitions());
  });
  it.skipIf(sharedFixturesAvailable())(`equal the tools of upstream's example rows: ${SHARED_SKIP_MESSAGE}`, () => {});
});

describe('google_search local index (shipped corpus)', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await localGym();
  });
  afterAll(async () => gym.close());

  it("answers in Google's JSON shape, as upstream's json.dumps (ASCII only)", async () => {
    const { body, text } = await tool(gym, 'search', { query: 'sel currency skerra' });
    expect(Object.keys(body)).toEqual(['search_results']);
    expect(body.search_results).toMatch(/^\{"kind": "customsearch#search", "queries": /);
    const results = JSON.parse(body.search_results);
    expect(results.items[0]).toEqual({
      kind: 'customsearch#result',
      title: 'Sel (currency)',
      link: `${WIKI}Sel_(currency)`,
      displayLink: 'orsola.example.org',
      snippet: expect.stringContaining('One sel is divided into 60 skerra.'),
      formattedUrl: `${WIKI}Sel_(currency)`,
    });
    expect(results.searchInformation.totalResults).toBe(String(results.items.length));
    // A non-ASCII character in the query comes back \u-escaped inside search_results.
    const accented = await tool(gym, 'search', { query: 'Orsolan café' });
    expect(accented.body.search_results).toContain('Orsolan caf\\u00e9');
    expect(text.startsWith('{"search_results": ')).toBe(true);
  });

  it('ranks by BM25: the page about the rare terms first, titles weighing more', async () => {
    const titles = async (query: string) => ((await search(gym, query)).items ?? []).map((item) => item.title);
    expect((await titles('Comet Castell-Ny first observed')).slice(0, 2)).toEqual(['Comet Castell-Ny', 'Imre Castell']);
    expect((await titles('kelmra'))[0]).toBe('Kelmra moss');
    expect((await titles('Tidal Clock of Dunmere pendulum'))[0]).toBe('Tidal Clock of Dunmere');
    expect((await titles('Maren Quill tagging study brimfin'))[0]).toBe('Maren Quill');
    // Up to 10 results, as Google.
    expect(await titles('the of Orsola')).toHaveLength(10);
  });

  it('answers no items when nothing matches, as Google', async () => {
    const results = await search(gym, 'xylophone quasar');
    expect(results.items).toBeUndefined();
    expect(results.searchInformation.totalResults).toBe('0');
  });

  it('browses corpus pages: text as it is, HTML without navigation, headers, footers and scripts', async () => {
    expect(await browse(gym, `${WIKI}Imre_Castell`)).toMatch(/^Imre Castell \(1851-1930\) was an Orsolan astronomer/);
    const teskin = await browse(gym, `${WIKI}Port_Teskin`);
    expect(teskin).toContain('Port Teskin is the capital and largest town of the Orsola Archipelago');
    for (const dropped of ['Home', 'Orsola wiki', 'Cookie settings', 'trackVisit', 'font:serif']) expect(teskin).not.toContain(dropped);
    // The same page with a trailing slash or a fragment.
    expect(await browse(gym, `${WIKI}Port_Teskin/#history`)).toBe(teskin);
  });

  it("answers upstream's 'No HTML found' for a page that is not in the corpus", async () => {
    expect(await browse(gym, 'https://example.com/not-there')).toBe('No HTML found');
    expect(await browse(gym, 'not a url')).toBe('No HTML found');
  });

  it('refuses arguments that do not fit the schema with a 422 naming the field', async () => {
    const missing = await tool(gym, 'search', {});
    expect(missing.status).toBe(422);
    expect(JSON.stringify(missing.body.detail)).toContain('query');
    expect((await tool(gym, 'browse', { url: 'x', extra: 1 })).status).toBe(422);
  });
});

describe('google_search browse limits', () => {
  const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index}`).join(' ');

  it("cuts a page of more than 10,000 words to its first and last 5,000 characters, as upstream", async () => {
    const long = words(10_001);
    const exact = words(10_000);
    const gym = await localGym({
      corpus_jsonl_fpath: corpusFile([
        { url: 'https://a.example/long', title: 'Long', text: long },
        { url: 'https://a.example/exact', title: 'Exact', text: exact },
        { url: 'https://a.example/scripts', title: 'Scripts only', html: '<html><body><script>var x = 1;</script></body></html>' },
      ]),
    });
    try {
      const cut = await browse(gym, 'https://a.example/long');
      expect(cut).toBe(`${long.slice(0, 5000)}...${long.slice(-5000)}`);
      expect(cut).toHaveLength(10_003);
      expect(await browse(gym, 'https://a.example/exact')).toBe(exact);
      expect(await browse(gym, 'https://a.example/scripts')).toBe('No text found');
    } finally {
      await gym.close();
    }
  });

  it('reads only the first browse_max_page_bytes characters of a page\'s HTML', async () => {
    const html = `<html><body><p>${'a'.repeat(50)}</p><p>SECRET-TAIL</p></body></html>`;
    const gym = await localGym({ browse_max_page_bytes: 40, corpus_jsonl_fpath: corpusFile([{ url: 'https://a.example/big', title: 'Big', html }]) });
    try {
      const text = await browse(gym, 'https://a.example/big');
      expect(text).not.toContain('SECRET-TAIL');
      expect(text.length).toBeLessThan(60);
    } finally {
      await gym.close();
    }
  });
});

describe('google_search corpus errors', () => {
  const fails = (corpus: string) => localGym({ corpus_jsonl_fpath: corpus });

  it('names the file, the line and the field of a bad page', async () => {
    const path = corpusFile([{ url: 'https://a.example/1', title: 'One', text: 'x' }, { url: 'https://a.example/2', text: 'no title' }]);
    await expect(fails(path)).rejects.toThrow(`${path} line 2 is not a corpus page (title:`);
    const both = corpusFile([{ url: 'https://a.example/1', title: 'One', text: 'x', html: '<p>x</p>' }]);
    await expect(fails(both)).rejects.toThrow(/line 1 is not a corpus page \(page: a page has exactly one of "text" and "html"\)/);
    await expect(fails(corpusFile('{"url": "https://a.example/1", '))).rejects.toThrow(/line 1 is not JSON/);
    await expect(fails(corpusFile([{ url: 'ftp://a.example/1', title: 'One', text: 'x' }]))).rejects.toThrow(/line 1 is not a corpus page \(url:/);
  });

  it('refuses a URL twice, an empty corpus and a missing file', async () => {
    const twice = corpusFile([
      { url: 'https://a.example/1', title: 'One', text: 'x' },
      { url: 'https://a.example/1/', title: 'Again', text: 'y' },
    ]);
    await expect(fails(twice)).rejects.toThrow('line 2: the URL https://a.example/1/ is already the page of line 1');
    await expect(fails(corpusFile(''))).rejects.toThrow(/has no pages/);
    await expect(fails('/nonexistent/corpus.jsonl')).rejects.toThrow(/Cannot read the search corpus \/nonexistent\/corpus.jsonl/);
  });
});

describe('google_search verify', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await localGym();
  });
  afterAll(async () => gym.close());

  async function verify(output: ResponseItem[], row: Record<string, unknown> = {}) {
    const body = { responses_create_params: { input: 'Q?\nA: x\nB: y\nC: z' }, response: modelResponse(output), expected_answer: 'C', ...row };
    const reply = await http.request(gym.url('google_search', '/verify'), { body });
    return { status: reply.status, body: reply.json<Record<string, any>>() };
  }
  const answer = async (text: string) => (await verify([assistantMessage(text)])).body;

  it('rewards the expected letter in the first box, and echoes the row', async () => {
    expect((await verify([assistantMessage('It is \\boxed{C}.')], { task_difficulty_qwen3_32b_avg_8: 0.5 })).body).toMatchObject({
      reward: 1,
      parsed_option: 'C',
      expected_answer: 'C',
      task_difficulty_qwen3_32b_avg_8: 0.5,
    });
    expect(await answer('\\boxed{B}')).toMatchObject({ reward: 0, parsed_option: 'B' });
    // Several boxes: the first one counts.
    expect(await answer('\\boxed{A} or maybe \\boxed{C}')).toMatchObject({ reward: 0, parsed_option: 'A' });
    expect(await answer('\\boxed{C} not \\boxed{A}')).toMatchObject({ reward: 1, parsed_option: 'C' });
  });

  it('compares exactly: no stripping, no case folding', async () => {
    expect(await answer('\\boxed{ C }')).toMatchObject({ reward: 0, parsed_option: ' C ' });
    expect(await answer('\\boxed{c}')).toMatchObject({ reward: 0, parsed_option: 'c' });
  });

  it("reads the box in the repr of the content, as upstream: backslashes inside it are doubled", async () => {
    expect(await answer('\\boxed{\\text{C}}')).toMatchObject({ reward: 0, parsed_option: '\\\\text{C' });
    // A box split over lines does not match: the repr writes the newline as \n, and the box ends at the first }.
    expect(await answer('\\boxed{\nC}')).toMatchObject({ reward: 0, parsed_option: '\\nC' });
    // The repr escapes what Python does not print (no-break and zero-width spaces), and keeps what it prints.
    expect(await answer('\\boxed{\u00a0C}')).toMatchObject({ reward: 0, parsed_option: '\\xa0C' });
    expect(await answer('\\boxed{C\u200b}')).toMatchObject({ reward: 0, parsed_option: 'C\\u200b' });
    expect(await answer('😀 \\boxed{C} é')).toMatchObject({ reward: 1, parsed_option: 'C' });
  });

  it('gives 0 and parsed_option null without a box (upstream fails with 500 here)', async () => {
    expect(await answer('The answer is C.')).toMatchObject({ reward: 0, parsed_option: null });
  });

  it('looks only at the last output item, when it is an assistant message', async () => {
    const box = assistantMessage('\\boxed{C}');
    expect((await verify([box, functionCall('search', { query: 'x' })])).body).toMatchObject({ reward: 0, parsed_option: null });
    expect((await verify([functionCall('search', { query: 'x' }), box])).body).toMatchObject({ reward: 1 });
    expect((await verify([box, assistantMessage('no box here')])).body).toMatchObject({ reward: 0, parsed_option: null });
    expect((await verify([])).body).toMatchObject({ reward: 0, parsed_option: null });
  });

  it('refuses a row without expected_answer with a 422 naming it', async () => {
    const { status, body } = await verify([assistantMessage('\\boxed{C}')], { expected_answer: undefined });
    expect(status).toBe(422);
    expect(JSON.stringify(body.detail)).toContain('expected_answer');
  });
});
