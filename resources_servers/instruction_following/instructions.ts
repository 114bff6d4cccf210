/**
 * The 54 verifiable instructions of NeMo Gym's instruction_following environment (IFEval plus the
 * open-instruct IFTrain additions, as packaged by `verifiable-instructions`), with their exact checking
 * rules. `checkInstruction(id, kwargs, text)` builds the instruction from its kwargs and checks the text.
 *
 * Where upstream would substitute a random value for a missing, empty or out-of-range kwarg (its
 * `build_description` draws one), the instruction is reported as not followed instead: a random reward is
 * not reproducible. Any other error (unknown id, unexpected kwarg, wrong type) is also "not followed", as
 * upstream's verify catches every exception.
 */
import {
  PYTHON_WHITESPACE,
  PYTHON_WORD,
  pythonIsLower,
  pythonIsUpper,
  pythonJsonLoads,
  pythonLength,
  pythonLstrip,
  PythonRegex,
  pythonSlice,
  pythonSplit,
  pythonStrip,
} from 'ngym/python-compat';
import { languageDetector, NoFeaturesError } from './language/language-detect.ts';
import { countSentences } from './text/punkt.ts';
import { firstChar, replaceAll } from './text/python-text.ts';
import { countWords, splitIntoSentences } from './text/sentences.ts';
import { wordTokenize } from './text/word-tokenize.ts';

/** Kwargs that make the instruction unusable (upstream: an exception, or a random stand-in). */
class InstructionArgumentError extends Error {
  override name = 'InstructionArgumentError';
}

/** ISO 639-1 codes IFEval's response-language instruction accepts (its `LANGUAGE_CODES`). */
export const IFEVAL_LANGUAGES: Readonly<Record<string, string>> = {
  en: 'English',
  es: 'Spanish',
  pt: 'Portuguese',
  ar: 'Arabic',
  hi: 'Hindi',
  fr: 'French',
  ru: 'Russian',
  de: 'German',
  ja: 'Japanese',
  it: 'Italian',
  bn: 'Bengali',
  uk: 'Ukrainian',
  th: 'Thai',
  ur: 'Urdu',
  ta: 'Tamil',
  te: 'Telugu',
  bg: 'Bulgarian',
  ko: 'Korean',
  pl: 'Polish',
  he: 'Hebrew',
  fa: 'Persian',
  vi: 'Vietnamese',
  ne: 'Nepali',
  sw: 'Swahili',
  kn: 'Kannada',
  mr: 'Marathi',
  gu: 'Gujarati',
  pa: 'Punjabi',
  ml: 'Malayalam',
  fi: 'Finnish',
};

const RELATIONS = ['less than', 'at least'] as const;
type Relation = (typeof RELATIONS)[number];

type Check = (text: string) => boolean;

/** Python truthiness of a JSON value (`not x`). */
function falsy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** The kwargs of one instruction, read with Python's rules for the types it would accept. */
class Kwargs {
  constructor(
    private readonly id: string,
    private readonly values: Record<string, unknown>,
  ) {}

  private random(name: string, why: string): never {
    throw new InstructionArgumentError(`${this.id}: ${name} ${why}; upstream would draw a random value, so the instruction is not scored as followed`);
  }

  private invalid(name: string, why: string): never {
    throw new InstructionArgumentError(`${this.id}: ${name} ${why}`);
  }

  has(name: string): boolean {
    return this.values[name] !== undefined;
  }

  raw(name: string): unknown {
    return this.values[name];
  }

  /** A number Python can compare (bool counts as int). */
  number(name: string, value = this.values[name]): number {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value !== 'number' || Number.isNaN(value)) this.invalid(name, `must be a number, got ${JSON.stringify(value)}`);
    return value;
  }

  integer(name: string, value = this.values[name]): number {
    const number = this.number(name, value);
    if (!Number.isInteger(number)) this.invalid(name, `must be an integer, got ${number}`);
    return number;
  }

  /** Upstream: `if x is None or x < 0: x = random...`. */
  threshold(name: string): number {
    if (!this.has(name)) this.random(name, 'is missing');
    const value = this.number(name);
    if (value < 0) this.random(name, 'is negative');
    return value;
  }

  /** Upstream: `if not x: x = random...`. */
  truthy(name: string): unknown {
    const value = this.values[name];
    if (falsy(value)) this.random(name, 'is missing or empty');
    return value;
  }

  string(name: string, value = this.values[name]): string {
    if (typeof value !== 'string') this.invalid(name, `must be a string, got ${JSON.stringify(value)}`);
    return value;
  }

  /** A `relation` kwarg: missing -> random upstream; anything but the two relations -> ValueError. */
  relation(name: string): Relation {
    if (!this.has(name)) this.random(name, 'is missing');
    const value = this.values[name];
    if (!RELATIONS.includes(value as Relation)) this.invalid(name, `must be "less than" or "at least", got ${JSON.stringify(value)}`);
    return value as Relation;
  }

  strings(name: string): string[] {
    const value = this.truthy(name);
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) this.invalid(name, 'must be a list of strings');
    return value as string[];
  }

  /** `x.strip() if isinstance(x, str) else x`, then required to be a string. */
  strippedString(name: string): string {
    if (!this.has(name)) this.random(name, 'is missing');
    return pythonStrip(this.string(name));
  }

  /** First/last-word kwargs accept a list (its first item) as upstream does. */
  wordOrFirstOfList(name: string): string {
    const value = this.truthy(name);
    return pythonStrip(this.string(name, Array.isArray(value) ? value[0] : value));
  }
}

function compare(actual: number, relation: Relation, threshold: number): boolean {
  return relation === 'less than' ? actual < threshold : actual >= threshold;
}

/** Data-supplied patterns are Python regexes; translation errors make the instruction fail, as `re.error` does. */
const pythonRegex = (pattern: string, flags: { ignoreCase?: boolean; multiline?: boolean } = {}) => PythonRegex.cached(pattern, flags);

const countMatches = (pattern: string, text: string, flags: { ignoreCase?: boolean; multiline?: boolean } = {}) => pythonRegex(pattern, flags).finditer(text).length;

/** `langdetect.detect(text) == language`, where "cannot detect" counts as followed. */
function detectedAs(text: string, language: string): boolean {
  try {
    return languageDetector().detect(text) === language;
  } catch (error) {
    if (error instanceof NoFeaturesError) return true;
    throw error;
  }
}

const SPACE_AROUND_STARS = new RegExp(`[${PYTHON_WHITESPACE}]?\\*\\*\\*[${PYTHON_WHITESPACE}]?`, 'u');

/** Paragraph count for dividers: blank first/last pieces do not count; a blank inner piece is invalid (null). */
function countParagraphs(paragraphs: string[]): number | null {
  let count = paragraphs.length;
  for (const [index, paragraph] of paragraphs.entries()) {
    if (pythonStrip(paragraph) !== '') continue;
    if (index === 0 || index === paragraphs.length - 1) count--;
    else return null;
  }
  return count;
}

/** Python `list[index]` with negative indices; IndexError when out of range. */
function pythonIndex<T>(list: readonly T[], index: number): T {
  const position = index < 0 ? list.length + index : index;
  if (position < 0 || position >= list.length) throw new RangeError('list index out of range');
  return list[position] as T;
}

const NON_WORD_NON_SPACE = new RegExp(`[^${PYTHON_WORD}${PYTHON_WHITESPACE}]`, 'gu');

function lastWordMatches(word: string, expected: string): boolean {
  return pythonStrip(word).replace(NON_WORD_NON_SPACE, '').toLowerCase() === expected.toLowerCase();
}

function letterFrequency(kwargs: Kwargs): Check {
  const letter = kwargs.raw('letter');
  const usable = typeof letter === 'string' && pythonLength(letter) === 1 && /^[a-z]$/.test(letter.toLowerCase());
  if (!usable) throw new InstructionArgumentError(`letter must be one ASCII letter, got ${JSON.stringify(letter)}; upstream would draw a random letter`);
  const lower = letter.toLowerCase();
  const frequency = kwargs.threshold('let_frequency');
  const relation = kwargs.relation('let_relation');
  return (text) => compare(Array.from(text.toLowerCase()).filter((char) => char === lower).length, relation, frequency);
}

function keywordFrequency(kwargs: Kwargs): Check {
  const keyword = pythonStrip(kwargs.string('keyword', kwargs.truthy('keyword')));
  const frequency = kwargs.threshold('frequency');
  const relation = kwargs.relation('relation');
  return (text) => compare(countMatches(keyword, text, { ignoreCase: true }), relation, frequency);
}

function dividerParagraphs(expected: (kwargs: Kwargs) => number): (kwargs: Kwargs) => Check {
  return (kwargs) => {
    const count = expected(kwargs);
    return (text) => countParagraphs(text.split(SPACE_AROUND_STARS)) === count;
  };
}

function copyOf(kwargs: Kwargs): Check {
  const prompt = kwargs.string('prompt_to_repeat', kwargs.truthy('prompt_to_repeat'));
  return (text) => pythonStrip(text).toLowerCase() === pythonStrip(prompt).toLowerCase();
}

interface InstructionSpec {
  /** The kwargs `build_description` accepts; any other key raises TypeError upstream. */
  params: readonly string[];
  build: (kwargs: Kwargs) => Check;
}

const noArguments = (check: Check): InstructionSpec => ({ params: [], build: () => check });

export const INSTRUCTIONS: Readonly<Record<string, InstructionSpec>> = {
  'keywords:existence': {
    params: ['keywords'],
    build: (kwargs) => {
      const keywords = kwargs.strings('keywords');
      return (text) => keywords.every((keyword) => pythonRegex(keyword, { ignoreCase: true }).search(text) !== null);
    },
  },
  'keywords:frequency': { params: ['keyword', 'frequency', 'relation'], build: keywordFrequency },
  'keywords:forbidden_words': {
    params: ['forbidden_words'],
    build: (kwargs) => {
      const words = kwargs.strings('forbidden_words');
      return (text) => words.every((word) => pythonRegex(`\\b${word}\\b`, { ignoreCase: true }).search(text) === null);
    },
  },
  'keywords:letter_frequency': { params: ['letter', 'let_frequency', 'let_relation'], build: letterFrequency },
  'language:response_language': {
    params: ['language'],
    build: (kwargs) => {
      if (!kwargs.has('language')) throw new InstructionArgumentError('language is missing; upstream would draw a random language');
      const language = kwargs.string('language');
      if (!Object.hasOwn(IFEVAL_LANGUAGES, language)) throw new InstructionArgumentError(`language ${JSON.stringify(language)} is not one of IFEval's codes`);
      return (text) => detectedAs(text, language);
    },
  },
  'length_constraints:number_sentences': {
    params: ['num_sentences', 'relation'],
    build: (kwargs) => {
      const threshold = kwargs.threshold('num_sentences');
      const relation = kwargs.relation('relation');
      return (text) => compare(countSentences(text), relation, threshold);
    },
  },
  'length_constraints:number_paragraphs': { params: ['num_paragraphs'], build: dividerParagraphs((kwargs) => kwargs.threshold('num_paragraphs')) },
  'length_constraints:number_words': {
    params: ['num_words', 'relation'],
    build: (kwargs) => {
      const threshold = kwargs.threshold('num_words');
      const relation = kwargs.relation('relation');
      return (text) => compare(countWords(text), relation, threshold);
    },
  },
  'length_constraints:nth_paragraph_first_word': {
    params: ['num_paragraphs', 'nth_paragraph', 'first_word'],
    build: (kwargs) => {
      const expectedCount = kwargs.threshold('num_paragraphs');
      if (!kwargs.has('nth_paragraph')) throw new InstructionArgumentError('nth_paragraph is missing; upstream would draw a random value');
      const nth = kwargs.integer('nth_paragraph');
      if (nth <= 0 || nth > expectedCount) throw new InstructionArgumentError(`nth_paragraph ${nth} is outside 1..num_paragraphs; upstream would draw a random value`);
      if (!kwargs.has('first_word')) throw new InstructionArgumentError('first_word is missing; upstream would draw a random word');
      const expectedWord = kwargs.string('first_word').toLowerCase();
      return (text) => {
        const paragraphs = text.split('\n\n');
        const count = paragraphs.filter((paragraph) => pythonStrip(paragraph) !== '').length;
        if (nth > count) return false;
        const paragraph = pythonStrip(paragraphs[nth - 1] as string);
        if (paragraph === '') return false;
        const word = pythonLstrip(pythonLstrip(pythonStrip(pythonSplit(paragraph)[0] as string), "'"), '"');
        let firstWord = '';
        for (const char of word) {
          if ('.,?!\'"'.includes(char)) break;
          firstWord += char.toLowerCase();
        }
        return count === expectedCount && firstWord === expectedWord;
      };
    },
  },
  'detectable_content:number_placeholders': {
    params: ['num_placeholders'],
    build: (kwargs) => {
      const minimum = kwargs.threshold('num_placeholders');
      // Python's `.` excludes only \n.
      return (text) => (text.match(/\[[^\n]*?\]/gu) ?? []).length >= minimum;
    },
  },
  'detectable_content:postscript': {
    params: ['postscript_marker'],
    build: (kwargs) => {
      const marker = kwargs.strippedString('postscript_marker');
      const pattern = marker === 'P.P.S' ? '\\s*p\\.\\s?p\\.\\s?s.*$' : marker === 'P.S.' ? '\\s*p\\.\\s?s\\..*$' : `\\s*${marker.toLowerCase()}.*$`;
      return (text) => countMatches(pattern, text.toLowerCase(), { multiline: true }) > 0;
    },
  },
  'detectable_format:number_bullet_lists': {
    params: ['num_bullets'],
    build: (kwargs) => {
      const expected = kwargs.threshold('num_bullets');
      return (text) => countMatches('^\\s*\\*[^\\*].*$', text, { multiline: true }) + countMatches('^\\s*-.*$', text, { multiline: true }) === expected;
    },
  },
  'detectable_format:constrained_response': noArguments((text) => {
    const stripped = pythonStrip(text);
    return ['My answer is yes.', 'My answer is no.', 'My answer is maybe.'].some((option) => stripped.includes(option));
  }),
  'detectable_format:number_highlighted_sections': {
    params: ['num_highlights'],
    build: (kwargs) => {
      const minimum = kwargs.threshold('num_highlights');
      return (text) => {
        let count = 0;
        for (const highlight of text.match(/\*[^\n*]*\*/gu) ?? []) if (pythonStrip(pythonStrip(highlight, '*')) !== '') count++;
        for (const highlight of text.match(/\*\*[^\n*]*\*\*/gu) ?? []) if (pythonStrip(highlight.slice(2, -2)) !== '') count++;
        return count >= minimum;
      };
    },
  },
  'detectable_format:multiple_sections': {
    params: ['section_spliter', 'num_sections'],
    build: (kwargs) => {
      const splitter = kwargs.strippedString('section_spliter');
      const minimum = kwargs.threshold('num_sections');
      const regex = pythonRegex(`\\s?${splitter}\\s?\\d+\\s?`);
      // len(re.split(...)) - 1: one more piece per match, plus one per capture group of the splitter.
      return (text) => regex.finditer(text).length * (1 + regex.groupCount) >= minimum;
    },
  },
  'detectable_format:json_format': noArguments((text) => {
    let value = pythonStrip(text);
    for (const prefix of ['```json', '```Json', '```JSON', '```']) if (value.startsWith(prefix)) value = value.slice(prefix.length);
    if (value.endsWith('```')) value = value.slice(0, -3);
    try {
      pythonJsonLoads(pythonStrip(value));
      return true;
    } catch (error) {
      if (error instanceof SyntaxError) return false;
      throw error;
    }
  }),
  'detectable_format:title': noArguments((text) =>
    (text.match(/<<[^\n]+>>/gu) ?? []).some((title) => pythonStrip(title.replace(/^<+/u, '').replace(/>+$/u, '')) !== ''),
  ),
  'combination:two_responses': noArguments((text) => {
    const responses = text.split('******');
    const valid: string[] = [];
    for (const [index, response] of responses.entries()) {
      if (pythonStrip(response) === '') {
        if (index !== 0 && index !== responses.length - 1) return false;
      } else valid.push(response);
    }
    return valid.length === 2 && pythonStrip(valid[0] as string) !== pythonStrip(valid[1] as string);
  }),
  'combination:repeat_prompt': {
    params: ['prompt_to_repeat'],
    build: (kwargs) => {
      const prompt = kwargs.string('prompt_to_repeat', kwargs.truthy('prompt_to_repeat'));
      return (text) => pythonStrip(text).toLowerCase().startsWith(pythonStrip(prompt).toLowerCase());
    },
  },
  'startend:end_checker': {
    params: ['end_phrase'],
    build: (kwargs) => {
      const phrase = kwargs.strippedString('end_phrase').toLowerCase();
      return (text) => pythonStrip(pythonStrip(text), '"').toLowerCase().endsWith(phrase);
    },
  },
  'startend:quotation': noArguments((text) => {
    const stripped = pythonStrip(text);
    return pythonLength(stripped) > 1 && stripped.startsWith('"') && stripped.endsWith('"');
  }),
  'change_case:capital_word_frequency': {
    params: ['capital_frequency', 'capital_relation'],
    build: (kwargs) => {
      if (!kwargs.has('capital_frequency')) throw new InstructionArgumentError('capital_frequency is missing; upstream would draw a random value');
      const frequency = kwargs.number('capital_frequency');
      const relation = kwargs.relation('capital_relation');
      return (text) => compare(wordTokenize(text).filter(pythonIsUpper).length, relation, frequency);
    },
  },
  'change_case:english_capital': noArguments((text) => pythonIsUpper(text) && detectedAs(text, 'en')),
  'change_case:english_lowercase': noArguments((text) => pythonIsLower(text) && detectedAs(text, 'en')),
  'punctuation:no_comma': noArguments((text) => !text.includes(',')),
  'copy:repeat_phrase': {
    params: ['phrase', 'small_n'],
    build: (kwargs) => {
      const phrase = pythonStrip(kwargs.string('phrase', kwargs.truthy('phrase')));
      const count = kwargs.number('small_n', kwargs.truthy('small_n'));
      const reference = pythonSplit(phrase);
      if (reference.length === 0) throw new InstructionArgumentError('phrase has no words');
      const regex = pythonRegex(`${reference[0]} .*? ${reference[reference.length - 1]}`);
      return (text) => {
        const found = regex.finditer(text).map((match) => match.text);
        if (found.length !== count) return false;
        let differences = 0;
        for (const candidate of found) {
          const words = pythonSplit(candidate);
          differences = 0;
          if (words.length !== reference.length) return false;
          for (const [index, word] of words.entries()) {
            if (word !== reference[index] && ++differences > 1) return false;
          }
        }
        // Upstream returns True only when the last phrase found differs in exactly one word.
        return differences === 1;
      };
    },
  },
  'copy:copy': { params: ['prompt_to_repeat'], build: copyOf },
  'new:copy_span_idx': {
    params: ['prompt_to_repeat', 'n_start', 'n_end'],
    build: (kwargs) => {
      const prompt = kwargs.string('prompt_to_repeat', kwargs.truthy('prompt_to_repeat'));
      const start = kwargs.integer('n_start', kwargs.truthy('n_start'));
      const end = kwargs.integer('n_end', kwargs.truthy('n_end'));
      const span = pythonStrip(pythonSlice(prompt, start, end)).toLowerCase();
      return (text) => pythonStrip(text).toLowerCase() === span;
    },
  },
  'detectable_format:sentence_hyphens': noArguments((text) => {
    const gold = splitIntoSentences(replaceAll(text, '-', ' '));
    const pieces = text.split('-');
    for (let index = 0; index < Math.min(gold.length, pieces.length); index++) {
      const piece = pieces[index] as string;
      if (pythonStrip(piece) !== piece || piece !== gold[index]) return false;
    }
    return true;
  }),
  'keywords:no_adjacent_consecutive': noArguments((text) => {
    const words = pythonSplit(text);
    for (let index = 0; index + 1 < words.length; index++) {
      const first = firstChar(words[index] as string).toLowerCase();
      const second = firstChar(words[index + 1] as string).toLowerCase();
      if (pythonLength(first) !== 1 || pythonLength(second) !== 1) return false;
      if ((second.codePointAt(0) as number) - (first.codePointAt(0) as number) === 1) return false;
    }
    return true;
  }),
  'detectable_format:square_brackets': noArguments((text) => pythonSplit(text).every((word) => word.startsWith('[') && word.endsWith(']'))),
  'keywords:word_once': {
    params: ['keyword'],
    build: (kwargs) => {
      const keyword = pythonStrip(kwargs.string('keyword', kwargs.truthy('keyword')));
      return (text) => countMatches(keyword, text, { ignoreCase: true }) === 1;
    },
  },
  'keywords:word_count_different_numbers': { params: ['keyword', 'frequency', 'relation'], build: keywordFrequency },
  'keywords:exclude_word_harder': {
    params: ['keyword', 'instruction'],
    build: (kwargs) => {
      const keyword = pythonStrip(kwargs.string('keyword', kwargs.truthy('keyword')));
      return (text) => !text.includes(` ${keyword} `);
    },
  },
  'paragraphs:paragraphs': { params: [], build: dividerParagraphs(() => 2) },
  'paragraphs:paragraphs2': noArguments((text) => countParagraphs(text.split('\n\n')) === 2),
  'first_word:first_word_sent': {
    params: ['first_word'],
    build: (kwargs) => {
      // verifiable_instructions (0.7.0) compares instead of assigning for a non-string `first_word`
      // (`self._first_word == first_word[0].strip()`), so the check then fails on a missing attribute.
      if (typeof kwargs.truthy('first_word') !== 'string') throw new InstructionArgumentError('first_word: a list is never read (upstream bug), so the instruction is not followed');
      const expected = kwargs.wordOrFirstOfList('first_word').toLowerCase();
      return (text) =>
        splitIntoSentences(text).every((sentence) => pythonStrip(sentence) !== '' && pythonStrip(pythonSplit(sentence)[0] as string).toLowerCase() === expected);
    },
  },
  'first_word:first_word_answer': {
    params: ['first_word'],
    build: (kwargs) => {
      const expected = pythonStrip(kwargs.string('first_word', kwargs.truthy('first_word'))).toLowerCase();
      return (text) => {
        const words = pythonSplit(text);
        return words.length > 0 && pythonStrip(words[0] as string).toLowerCase() === expected;
      };
    },
  },
  'last_word:last_word_sent': {
    params: ['last_word'],
    build: (kwargs) => {
      const expected = kwargs.wordOrFirstOfList('last_word');
      return (text) => splitIntoSentences(text).every((sentence) => pythonStrip(sentence) !== '' && lastWordMatches(pythonSplit(sentence).at(-1) as string, expected));
    },
  },
  'last_word:last_word_answer': {
    params: ['last_word'],
    build: (kwargs) => {
      const expected = pythonStrip(kwargs.string('last_word', kwargs.truthy('last_word')));
      return (text) => lastWordMatches(pythonIndex(pythonSplit(text), -1), expected);
    },
  },
  'detectable_format:bigram_wrapping': noArguments((text) => {
    const words = pythonSplit(text);
    for (let index = 0; index + 1 < words.length; index += 2) {
      if (!((words[index] as string).startsWith('<<') && (words[index + 1] as string).endsWith('>>'))) return false;
    }
    return true;
  }),
  'copy:copying_simple': { params: ['prompt_to_repeat'], build: copyOf },
  'copy:copying_multiple': {
    params: ['prompt_to_repeat', 'N'],
    build: (kwargs) => {
      const prompt = pythonStrip(kwargs.string('prompt_to_repeat', kwargs.truthy('prompt_to_repeat'))).toLowerCase();
      const count = kwargs.number('N', kwargs.truthy('N'));
      return (text) => {
        const copies = text.split('******');
        return copies.length === count && copies.every((copy) => pythonStrip(copy).toLowerCase() === prompt);
      };
    },
  },
  'punctuation:punctuation_dot': noArguments((text) => !text.includes('.')),
  'punctuation:punctuation_exclamation': noArguments((text) => !text.includes('!')),
  'count:lowercase_counting': {
    params: ['N'],
    build: (kwargs) => {
      const maximum = kwargs.number('N', kwargs.truthy('N'));
      return (text) => countMatches('\\b[a-z]+\\b', text) <= maximum;
    },
  },
  'letters:letter_counting': {
    params: ['N', 'relation'],
    build: (kwargs) => {
      const threshold = kwargs.number('N', kwargs.truthy('N'));
      const relation = kwargs.truthy('relation');
      return (text) => {
        const letters = (text.match(/[a-zA-Z]/g) ?? []).length;
        // Upstream returns None (not followed) for any other relation.
        return relation === 'at least' ? letters >= threshold : relation === 'less than' ? letters < threshold : false;
      };
    },
  },
  'letters:letter_counting2': { params: ['letter', 'let_frequency', 'let_relation'], build: letterFrequency },
  'count:counting_composition': {
    params: ['n_sent', 'n_words'],
    build: (kwargs) => {
      const sentencesPerParagraph = kwargs.number('n_sent', kwargs.truthy('n_sent'));
      const wordsPerSentence = kwargs.number('n_words', kwargs.truthy('n_words'));
      return (text) => {
        const paragraphs = text.split(SPACE_AROUND_STARS);
        let count = paragraphs.length;
        for (const [index, paragraph] of paragraphs.entries()) {
          if (pythonStrip(paragraph) === '') {
            if (index === 0 || index === paragraphs.length - 1) count--;
            else return false;
          }
          // Upstream checks blank first and last paragraphs too (they have no sentences, so they fail).
          const sentences = splitIntoSentences(paragraph);
          if (sentences.length !== sentencesPerParagraph) return false;
          if (sentences.some((sentence) => wordTokenize(sentence).length !== wordsPerSentence)) return false;
        }
        return count === 3;
      };
    },
  },
  'count:count_unique': noArguments((text) => {
    const words = wordTokenize(text);
    return words.length === new Set(words).size;
  }),
  'count:count_increment_word': {
    params: ['keyword1', 'keyword2'],
    build: (kwargs) => {
      const first = pythonStrip(kwargs.string('keyword1', kwargs.truthy('keyword1')));
      const second = pythonStrip(kwargs.string('keyword2', kwargs.truthy('keyword2')));
      return (text) => countMatches(first, text, { ignoreCase: true }) === 1 && countMatches(second, text, { ignoreCase: true }) === 2;
    },
  },
  'keywords:palindrome': noArguments((text) => pythonSplit(text).some((word) => word === Array.from(word).reverse().join(''))),
  'keywords:keyword_specific_position': {
    params: ['keyword', 'n', 'm'],
    build: (kwargs) => {
      const keyword = kwargs.wordOrFirstOfList('keyword');
      const sentenceNumber = kwargs.integer('n', kwargs.truthy('n'));
      const wordNumber = kwargs.integer('m', kwargs.truthy('m'));
      return (text) => {
        const sentences = splitIntoSentences(text);
        if (sentences.length < sentenceNumber) return false;
        const words = wordTokenize(pythonIndex(sentences, sentenceNumber - 1));
        if (words.length < wordNumber) return false;
        return pythonIndex(words, wordNumber - 1) === keyword;
      };
    },
  },
  'keywords:start_end': noArguments((text) => {
    const words = wordTokenize(text);
    return words.length >= 2 && (words[0] as string).toLowerCase() === (words[words.length - 1] as string).toLowerCase();
  }),
};

export interface InstructionResult {
  followed: boolean;
  /** Why the instruction could not be checked (bad id or kwargs, checker error); undefined when it was. */
  error?: string;
}

/** Builds the instruction from its kwargs (None values dropped) and checks `text`; never throws. */
export function checkInstruction(id: string, kwargs: unknown, text: string): InstructionResult {
  try {
    const spec = Object.hasOwn(INSTRUCTIONS, id) ? INSTRUCTIONS[id] : undefined;
    if (spec === undefined) throw new InstructionArgumentError(`unknown instruction id ${JSON.stringify(id)}`);
    if (kwargs !== null && kwargs !== undefined && (typeof kwargs !== 'object' || Array.isArray(kwargs))) {
      throw new InstructionArgumentError(`kwargs must be an object or null, got ${JSON.stringify(kwargs)}`);
    }
    const values = Object.fromEntries(Object.entries((kwargs ?? {}) as Record<string, unknown>).filter(([, value]) => value !== null && value !== undefined));
    const unexpected = Object.keys(values).filter((name) => !spec.params.includes(name));
    if (unexpected.length > 0) throw new InstructionArgumentError(`${id} got unexpected kwargs ${unexpected.join(', ')}`);
    return { followed: spec.build(new Kwargs(id, values))(text) };
  } catch (error) {
    return { followed: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}
