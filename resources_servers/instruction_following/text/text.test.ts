import { readFileSync } from 'node:fs';
import { pythonIsLower, pythonIsUpper, pythonSplit, pythonStrip } from 'ngym/python-compat';
import { describe, expect, it } from 'vitest';
import { countSentences, sentTokenize } from './punkt.ts';
import { countWords, splitIntoSentences } from './sentences.ts';
import { treebankTokenize, wordTokenize } from './word-tokenize.ts';

interface NltkCase {
  text: string;
  sentences: string[];
  words: string[];
}
// Recorded from NLTK 3.10.4 (what upstream 0.7.0's venv installs) with NLTK's punkt_tab English model, orthographic
// context included: `nltk.data.load("nltk:tokenizers/punkt/english.pickle").tokenize` (verifiable_instructions'
// call), then `NLTKWordTokenizer().tokenize` on each sentence.
const nltkCases = JSON.parse(readFileSync(new URL('./__fixtures__/nltk-english.json', import.meta.url), 'utf8')) as NltkCase[];

describe('Punkt sentences and NLTK words match NLTK', () => {
  for (const nltkCase of nltkCases) {
    it(JSON.stringify(nltkCase.text.slice(0, 50)), () => {
      expect(sentTokenize(nltkCase.text)).toEqual(nltkCase.sentences);
      expect(wordTokenize(nltkCase.text)).toEqual(nltkCase.words);
      expect(countSentences(nltkCase.text)).toBe(nltkCase.sentences.length);
    });
  }

  it('keeps abbreviations and initials inside a sentence, breaks after ordinary periods', () => {
    expect(sentTokenize('Dr. Smith met Mr. J. Jones at 5 p.m. The meeting ran long.')).toEqual(['Dr. Smith met Mr. J. Jones at 5 p.m.', 'The meeting ran long.']);
    expect(countSentences('')).toBe(0);
    expect(countSentences('no terminal punctuation')).toBe(1);
  });

  it('splits contractions and final periods like the Treebank tokenizer', () => {
    expect(treebankTokenize("They'll say it can't be. ")).toEqual(['They', "'ll", 'say', 'it', 'ca', "n't", 'be', '.']);
  });
});

describe('IFEval helpers', () => {
  it('split_into_sentences protects prefixes, websites, decimals, acronyms and initials', () => {
    expect(splitIntoSentences('Mr. Smith paid 3.5 dollars at example.com. He left! Did he? Yes.')).toEqual([
      'Mr. Smith paid 3.5 dollars at example.com.',
      'He left!',
      'Did he?',
      'Yes.',
    ]);
    expect(splitIntoSentences('The U.S.A. is big. J. R. R. Tolkien wrote it... Then "quoted." End')).toEqual([
      'The U.S.A. is big.',
      'J. R. R. Tolkien wrote it...',
      'Then "quoted".',
      'End',
    ]);
    expect(splitIntoSentences('')).toEqual([]);
  });

  it('counts words as Unicode \\w+ runs, like Python', () => {
    expect(countWords('हिन्दी भाषा café naïve')).toBe(7);
    expect(countWords("it's a well-known fact_here")).toBe(6);
  });

  it("emulates Python's whitespace, isupper and islower", () => {
    expect(pythonStrip('\u3000\x1c text \x85')).toBe('text');
    expect(pythonStrip('\ufefftext')).toBe('\ufefftext');
    expect(pythonSplit(' a\u2003b\nc ')).toEqual(['a', 'b', 'c']);
    expect(pythonIsUpper('HELLO 123!')).toBe(true);
    expect(pythonIsUpper('123')).toBe(false);
    expect(pythonIsUpper('ǅ')).toBe(false);
    expect(pythonIsLower('ᵃbc')).toBe(true);
  });
});
