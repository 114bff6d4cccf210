import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_TEMPLATE_FPATH, loadJudgePrompt } from './judge-prompt.ts';

const FIELDS = ['question', 'expected_answer', 'generated_answer'];
const directory = mkdtempSync(join(tmpdir(), 'ngym-judge-prompt-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
};
const load = (keys: { judge_prompt_template?: string | null; judge_prompt_template_fpath?: string | null }) =>
  loadJudgePrompt({ judge_prompt_template: null, judge_prompt_template_fpath: null, ...keys }, FIELDS);
const values = { question: 'Q?', expected_answer: 'gold', generated_answer: 'candidate' };

describe('equivalence_llm_judge judge prompt', () => {
  it('reads the shipped file by default, relative to the server folder whatever the working directory', () => {
    expect(process.cwd()).not.toMatch(/equivalence_llm_judge$/);
    const shipped = readFileSync(new URL(`./${DEFAULT_TEMPLATE_FPATH}`, import.meta.url), 'utf8');
    expect(load({}).template).toBe(shipped.trim());
    expect(load({ judge_prompt_template_fpath: DEFAULT_TEMPLATE_FPATH }).template).toBe(shipped.trim());
    expect(load({}).format(values)).toMatch(/QUESTION:\nQ\?\n\nGOLD:\ngold\n\nCANDIDATE:\ncandidate$/);
  });

  it('names the file the shipped config points at', () => {
    const config = parse(readFileSync(new URL('./configs/equivalence_llm_judge.yaml', import.meta.url), 'utf8'));
    const server = config.equivalence_llm_judge.resources_servers.equivalence_llm_judge;
    expect(server.judge_prompt_template_fpath).toBe(DEFAULT_TEMPLATE_FPATH);
    expect(server.judge_prompt_template).toBeUndefined();
  });

  it('reads an absolute path as given, stripping surrounding whitespace as upstream does', () => {
    const path = file('custom.txt', '\n  Compare {expected_answer} with {generated_answer} ({question}).\n\n');
    expect(load({ judge_prompt_template_fpath: path }).format(values)).toBe('Compare gold with candidate (Q?).');
  });

  it('uses the inline template when only it is set, and refuses both at once', () => {
    expect(load({ judge_prompt_template: ' {question} ' }).format(values)).toBe(' Q? ');
    expect(() => load({ judge_prompt_template: '{question}', judge_prompt_template_fpath: DEFAULT_TEMPLATE_FPATH })).toThrow(
      /judge_prompt_template and judge_prompt_template_fpath are both set/,
    );
  });

  it('fails with a config error naming the key and the path for a missing file', () => {
    const missing = join(directory, 'nowhere.txt');
    expect(() => load({ judge_prompt_template_fpath: missing })).toThrow(`judge_prompt_template_fpath: cannot read the judge prompt file ${missing}: ENOENT`);
    expect(() => load({ judge_prompt_template_fpath: 'prompt_templates/lc_judge.txt' })).toThrow(
      /judge_prompt_template_fpath: cannot read the judge prompt file \S+equivalence_llm_judge\/prompt_templates\/lc_judge\.txt: ENOENT \(relative paths are read from \S+equivalence_llm_judge\/\)/,
    );
    expect(() => load({ judge_prompt_template_fpath: directory })).toThrow(/cannot read the judge prompt file .*: EISDIR/);
  });

  it('fails naming the key and the path for unknown placeholders or a malformed template in the file', () => {
    const unknown = file('unknown.txt', 'Q: {question} A: {answer}');
    expect(() => load({ judge_prompt_template_fpath: unknown })).toThrow(`judge_prompt_template_fpath (${unknown}) uses the placeholder {answer}`);
    const malformed = file('malformed.txt', 'find . -exec rm {} \\;');
    expect(() => load({ judge_prompt_template_fpath: malformed })).toThrow(`judge_prompt_template_fpath (${malformed}): Unsupported replacement field {}`);
    try {
      load({ judge_prompt_template_fpath: malformed });
    } catch (error) {
      expect(error).toMatchObject({ code: 'NGYM_CONFIG_INVALID', key: 'judge_prompt_template_fpath' });
    }
  });
});
