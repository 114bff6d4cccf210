/**
 * word_sorting: sort a list of words by ASCII/Unicode order, ascending or descending, as a comma-separated
 * list. Scoring is reasoning-gym 0.1.25's: 1.0 for the expected list; else the share of positions holding
 * the expected word, raised to 0.2 when the answer holds exactly the expected words in another order.
 */
import { comparePythonStrings, PYTHON_WHITESPACE, pythonEquals, pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';
import type { SeededRandom } from './random.ts';
import { defineTask, metadataField } from './task.ts';
import { WORDS } from './words.ts';

/** Python's `sorted(strings)`: by code point. */
const sorted = (items: readonly string[]): string[] => [...items].sort(comparePythonStrings);

const QUESTION = `Your task is to sort words in ascending or descending order using ASCII/Unicode ordering.

Your output should be a comma-separated list of words, e.g. word_1, word_2, word_3

Now, sort these words in {direction} order (using ASCII/Unicode ordering) and return them as a comma-separated list: {words}
`;

const WordSortingConfig = z.strictObject({
  min_words: z.number().int().min(1).default(3),
  max_words: z.number().int().min(1).default(10),
  min_word_length: z.number().int().min(1).default(3),
  max_word_length: z.number().int().min(1).default(12),
  transformation: z.enum(['original', 'lowercase', 'uppercase', 'randomcase']).default('original'),
});
type WordSortingConfig = z.infer<typeof WordSortingConfig>;

const vocabularyCache = new Map<string, string[]>();
function vocabulary(config: WordSortingConfig): string[] {
  const key = `${config.min_word_length}-${config.max_word_length}`;
  let words = vocabularyCache.get(key);
  if (words === undefined) {
    words = sorted([...new Set(WORDS.filter((word) => word.length >= config.min_word_length && word.length <= config.max_word_length))]);
    vocabularyCache.set(key, words);
  }
  return words;
}

function transform(word: string, config: WordSortingConfig, random: SeededRandom): string {
  switch (config.transformation) {
    case 'lowercase':
      return word.toLowerCase();
    case 'uppercase':
      return word.toUpperCase();
    case 'randomcase':
      return Array.from(word, (char) => (random.boolean() ? char.toUpperCase() : char.toLowerCase())).join('');
    default:
      return word;
  }
}

const commaSeparator = new RegExp(`,[${PYTHON_WHITESPACE}]*`, 'u');

export const wordSorting = defineTask({
  name: 'word_sorting',
  category: 'algorithmic',
  description: 'Sort words by ASCII/Unicode order, ascending or descending.',
  config: WordSortingConfig,
  validate: (config) => {
    if (config.min_words > config.max_words) return 'max_words must be >= min_words';
    if (config.min_word_length > config.max_word_length) return 'max_word_length must be >= min_word_length';
    const available = vocabulary(config).length;
    return config.max_words > available ? `max_words is ${config.max_words} but only ${available} words have ${config.min_word_length}-${config.max_word_length} letters` : undefined;
  },
  difficulty: (config) => ({ num_words: [config.min_words, config.max_words], word_length: [config.min_word_length, config.max_word_length] }),
  generate: (random, config) => {
    const originalWords = random.sample(vocabulary(config), random.int(config.min_words, config.max_words));
    const transformedWords = originalWords.map((word) => transform(word, config, random));
    const ascending = random.boolean();
    const direction = ascending ? 'ascending' : 'descending';
    const sortedWords = ascending ? sorted(transformedWords) : sorted(transformedWords).reverse();
    return {
      question: QUESTION.replace('{direction}', direction).replace('{words}', () => transformedWords.join(', ')),
      answer: sortedWords.join(', '),
      metadata: { original_words: originalWords, sorted_words: sortedWords, transformed_words: transformedWords, direction },
    };
  },
  score: (answer, entry) => {
    const oracle = metadataField(entry, 'sorted_words', z.array(z.string()));
    if (answer === null || answer.length === 0) return 0;
    const parsed = answer.split(commaSeparator).map((part) => pythonStrip(part));
    if (pythonEquals(parsed, oracle)) return 1;
    // Python raises ZeroDivisionError on an empty oracle; the server scores that 0.
    if (oracle.length === 0) throw new RangeError('metadata.sorted_words is empty');
    const correct = parsed.filter((word, index) => index < oracle.length && word === oracle[index]).length;
    const partial = correct / oracle.length;
    return pythonEquals(sorted(parsed), sorted(oracle)) ? Math.max(partial, 0.2) : partial;
  },
});
