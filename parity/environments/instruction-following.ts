/**
 * instruction_following: the example rollouts (ngym's, then upstream 0.7.0's joined to their rows), then for every instruction id kwargs swept over their range (each
 * relation, small and large thresholds, None values, wrong types, unexpected keys, invalid relations) and texts
 * made to satisfy or to violate it (sentences with abbreviations and ellipses, `***` and blank-line paragraphs,
 * bullets, highlights, JSON, titles, P.S., quotes, upper and lower case, commas, eleven languages, copies and
 * repeats of the prompt...), often with one or two other ids on the same row; under both grading modes, in the
 * legacy top-level format and 0.7.0's `verifier_metadata` (and both at once); with empty output, a tool call last
 * and truncated text.
 *
 * Not generated: kwargs for which upstream draws a random value (a missing threshold, relation, keyword or
 * language, `n_start: 0`...; ngym scores those "not followed": a random reward is not reproducible), and short or
 * mixed-language texts for the language checks (upstream's langdetect is unseeded there). docs/parity.md.
 */
import { spawnSync } from 'node:child_process';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { PythonSetup } from '../gym.ts';
import type { SeededRandom as Random } from 'ngym';

const FIELDS = ['follow_all_instructions', 'follow_instruction_list', 'verifier_metadata'];
const COMPUTED = ['follow_all_instructions', 'follow_instruction_list'];
const SETUP = 'bash parity/setup-instruction-following.sh';

const SENTENCES = [
  'The sea is calm today.',
  'Dr. Smith arrived at noon.',
  'We met Mr. Jones at the U.S. embassy.',
  'It rained... Then the sun came out.',
  'Is this the right way?',
  'What a wonderful morning!',
  'The meeting starts at 3 p.m. sharp.',
  'Prices rose 5.5% in Jan. and fell in Feb.',
  'She said "hello" and left.',
  'e.g. apples, pears and plums are fruit.',
  'The ship sailed at dawn; the crew was tired.',
  'Tides follow the Moon.',
  'I saw J. R. R. Tolkien once.',
  'Wait... Let me think about it.',
  'The results (see Fig. 2) are clear.',
  'They walked to St. Louis in 1990.',
  'The sea... Ships sail.',
  'He said... Nothing.',
  '“Quoted text.” Next one follows.',
  'It was—as always—late.',
  "'Tis the season; don't go.",
  "She said 'go' and we went.",
  'Prof. Lee won the No. 1 prize.',
  'The U.S.A. is big. Corp. profits rose.',
];
const WORDS = ['ocean', 'wave', 'tide', 'moon', 'sand', 'ship', 'harbor', 'storm', 'salt', 'wind', 'shell', 'coral', 'reef', 'gull', 'fish'];
const LANGUAGE_TEXTS: Record<string, string> = {
  en: 'The committee will review the budget proposal next Tuesday and publish its findings shortly afterwards.',
  fr: "Le comité examinera la proposition de budget mardi prochain et publiera ses conclusions peu de temps après.",
  es: 'El comité revisará la propuesta de presupuesto el próximo martes y publicará sus conclusiones poco después.',
  de: 'Der Ausschuss wird den Haushaltsvorschlag am nächsten Dienstag prüfen und seine Ergebnisse kurz danach veröffentlichen.',
  it: 'Il comitato esaminerà la proposta di bilancio martedì prossimo e pubblicherà le sue conclusioni poco dopo.',
  pt: 'O comitê analisará a proposta de orçamento na próxima terça-feira e publicará as suas conclusões logo depois.',
  ru: 'Комитет рассмотрит проект бюджета в следующий вторник и вскоре после этого опубликует свои выводы.',
  hi: 'समिति अगले मंगलवार को बजट प्रस्ताव की समीक्षा करेगी और उसके तुरंत बाद अपने निष्कर्ष प्रकाशित करेगी।',
  ja: '委員会は来週の火曜日に予算案を審査し、その後すぐに結果を発表する予定です。',
  ko: '위원회는 다음 주 화요일에 예산안을 검토하고 곧이어 결과를 발표할 예정입니다.',
  ar: 'ستقوم اللجنة بمراجعة مقترح الميزانية يوم الثلاثاء المقبل وستنشر نتائجها بعد ذلك بوقت قصير.',
};
const LANGUAGES = Object.keys(LANGUAGE_TEXTS);
// Data-supplied patterns: metacharacters, alternations, classes, and ones Python cannot compile (both: not followed).
const PATTERNS = ['c++', 'a.b', '(sea)', 'sea|ship', '\\d+', '[', 'wave\\w*', '(?i)TIDE', 'sea$', '^The'];
const PROMPTS = ['Write a short note about the sea.', 'Describe how tides work in two sentences.', 'List three things sailors fear!', 'What is the capital of France?'];

type Built = { kwargs: Record<string, unknown> | null; text: string; variant: string };
type Builder = (random: Random) => Built;

const sentences = (random: Random, count: number): string => Array.from({ length: count }, () => random.pick(SENTENCES)).join(' ');
const words = (random: Random, count: number): string => Array.from({ length: count }, () => random.pick(WORDS)).join(' ');
const relation = (random: Random): string => random.pick(['less than', 'at least']);
const near = (random: Random, value: number): number => Math.max(0, value + random.pick([-1, 0, 0, 1, 2]));
const capitalized = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

function paragraphs(random: Random, count: number, separator: string): string {
  return Array.from({ length: count }, () => sentences(random, random.int(1, 3))).join(separator);
}

const BUILDERS: Record<string, Builder> = {
  'keywords:existence': (random) => {
    if (random.chance(0.25)) return { kwargs: { keywords: [random.pick(PATTERNS)] }, text: random.pick(['c++ and a.b (sea) 42 waves', 'The sea. TIDE', sentences(random, 2)]), variant: 'pattern' };
    const keywords = random.shuffled(WORDS).slice(0, random.int(1, 3));
    const used = random.chance(0.5) ? keywords : keywords.slice(1);
    return { kwargs: { keywords }, text: `${sentences(random, 2)} ${used.map((word) => random.pick([word, word.toUpperCase(), `${word}s`])).join(' and ')}.`, variant: used.length === keywords.length ? 'all' : 'some' };
  },
  'keywords:frequency': (random) => {
    const keyword = random.chance(0.2) ? random.pick(PATTERNS) : random.pick(WORDS);
    const times = random.int(0, 5);
    return { kwargs: { keyword, frequency: near(random, times), relation: relation(random) }, text: `${Array.from({ length: times }, () => `The ${keyword} is here.`).join(' ')} ${sentences(random, 1)}`, variant: `${times}` };
  },
  'keywords:forbidden_words': (random) => {
    const forbidden = random.chance(0.2) ? [random.pick(PATTERNS), random.pick(WORDS)] : random.shuffled(WORDS).slice(0, 2);
    const text = random.chance(0.5) ? `${sentences(random, 2)} The ${random.pick([forbidden[0], capitalized(forbidden[0] as string), `${forbidden[0]}y`])} was near.` : sentences(random, 2);
    return { kwargs: { forbidden_words: forbidden }, text, variant: 'forbidden' };
  },
  'keywords:letter_frequency': (random) => {
    const letter = random.pick(['a', 'e', 'z', 'q', 'S']);
    const text = sentences(random, random.int(1, 4));
    const count = Array.from(text.toLowerCase()).filter((char) => char === letter.toLowerCase()).length;
    return { kwargs: { letter, let_frequency: near(random, count), let_relation: relation(random) }, text, variant: letter };
  },
  'language:response_language': (random) => {
    const language = random.pick(LANGUAGES);
    const written = random.chance(0.5) ? language : random.pick(LANGUAGES);
    return { kwargs: { language }, text: `${LANGUAGE_TEXTS[written] as string} ${LANGUAGE_TEXTS[written] as string}`, variant: written === language ? 'same' : 'other' };
  },
  'length_constraints:number_sentences': (random) => {
    const count = random.int(1, 8);
    return { kwargs: { num_sentences: near(random, count), relation: relation(random) }, text: sentences(random, count), variant: `${count}` };
  },
  'length_constraints:number_paragraphs': (random) => {
    const count = random.int(1, 5);
    const separator = random.pick(['\n***\n', ' *** ', '\n\n***\n\n', '***']);
    let text = paragraphs(random, count, separator);
    const shape = random.pick(['plain', 'leading', 'trailing', 'empty_inner']);
    if (shape === 'leading') text = `***\n${text}`;
    if (shape === 'trailing') text = `${text}\n***`;
    if (shape === 'empty_inner') text = `${text}\n***\n\n***\n${sentences(random, 1)}`;
    return { kwargs: { num_paragraphs: near(random, count) }, text, variant: shape };
  },
  'length_constraints:number_words': (random) => {
    const count = random.pick([1, 5, 20, 60, 150]);
    return { kwargs: { num_words: near(random, count), relation: relation(random) }, text: words(random, count), variant: `${count}` };
  },
  'length_constraints:nth_paragraph_first_word': (random) => {
    const count = random.int(1, 4);
    const first = random.pick(WORDS);
    const nth = random.int(1, count);
    const parts = Array.from({ length: count }, (_, index) => `${index + 1 === nth ? random.pick([capitalized(first), `"${first},`, `'${first}`, `${first}.`, 'Other']) : 'Then'} ${sentences(random, 1)}`);
    return { kwargs: { num_paragraphs: near(random, count) || 1, nth_paragraph: nth, first_word: first }, text: parts.join(random.pick(['\n\n', '\n\n\n', '\n'])), variant: `${count}` };
  },
  'detectable_content:number_placeholders': (random) => {
    const count = random.int(0, 4);
    return { kwargs: { num_placeholders: near(random, count) }, text: `Dear ${Array.from({ length: count }, (_, index) => random.pick([`[name${index}]`, `[address ${index}]`, '[]'])).join(', ')} ${random.pick(['', '[broken\n]'])}`, variant: `${count}` };
  },
  'detectable_content:postscript': (random) => {
    const marker = random.pick(['P.S.', 'P.P.S', 'Note:', 'PS', 'P.S', 'p.s.', 'P.P.S.', '(', '*']);
    const ending = random.pick(['\nP.S. Bring a towel.', '\np.s. see you', '\nP.P.S. one more', '\nPS later', '\nNote: tides vary.', '', ' P. S. here']);
    return { kwargs: { postscript_marker: random.pick([marker, ` ${marker} `]) }, text: `${sentences(random, 2)}${ending}`, variant: marker };
  },
  'detectable_format:number_bullet_lists': (random) => {
    const count = random.int(0, 5);
    const bullet = random.pick(['* ', '- ', '  * ', '**']);
    return { kwargs: { num_bullets: near(random, count) }, text: `Items:\n${Array.from({ length: count }, () => `${bullet}${random.pick(WORDS)}`).join('\n')}${random.pick(['', '\n**bold** line', '\n-dash'])}`, variant: bullet.trim() };
  },
  'detectable_format:constrained_response': (random) => ({ kwargs: null, text: random.pick(['My answer is yes.', '  My answer is maybe.  ', 'My answer is perhaps.', 'Well. My answer is no. Sorry', 'my answer is yes.']), variant: 'answer' }),
  'detectable_format:number_highlighted_sections': (random) => {
    const count = random.int(0, 4);
    const forms = ['*one*', '**two**', '* *', '** **', '*multi\nline*', '*a* *b*'];
    return { kwargs: { num_highlights: near(random, count) }, text: `${sentences(random, 1)} ${Array.from({ length: count }, () => random.pick(forms)).join(' ')}`, variant: `${count}` };
  },
  'detectable_format:multiple_sections': (random) => {
    const splitter = random.pick(['Section', 'SECTION', 'Part', 'Chapter', 'Section.', 'PART|SECTION', '*', '(Part)']);
    const count = random.int(0, 4);
    const used = random.chance(0.8) ? splitter : 'Section';
    return { kwargs: { section_spliter: random.pick([splitter, ` ${splitter}`]), num_sections: near(random, count) }, text: Array.from({ length: count }, (_, index) => `${used} ${index + 1}\n${sentences(random, 1)}`).join('\n'), variant: splitter };
  },
  'detectable_format:json_format': (random) => ({
    kwargs: null,
    text: random.pick(['{"a": Infinity}', '{"a": 1e400}', '{"a": "\\ud800"}', '{"a": 1, "a": 2}', '[1, 2,]', '```json\n{"a": 1}\n```\nThanks', '{"a": "tab\there"}', '  \n```json\n[]\n```  ', 'null', '1 2', '{"a": 1}', '```json\n{"a": [1, 2]}\n```', '```JSON\n{"a": NaN}\n```', '```\n[1, 2]\n```', '{"a": 1,}', "{'a': 1}", 'Here: {"a": 1}', '  "text"  ', '```json\n{"a": 1}']),
    variant: 'json',
  }),
  'detectable_format:title': (random) => ({ kwargs: null, text: `${random.pick(['<<Sea Notes>>', '<< >>', '<<a\nb>>', '<<<Deep>>>', '<Sea>', ''])}\n${sentences(random, 2)}`, variant: 'title' }),
  'combination:two_responses': (random) => {
    const first = sentences(random, 1);
    const second = random.chance(0.3) ? first : sentences(random, 1);
    return { kwargs: null, text: random.pick([`${first}\n******\n${second}`, `******\n${first}\n******\n${second}\n******`, `${first}\n******\n\n******\n${second}`, first]), variant: 'two' };
  },
  'combination:repeat_prompt': (random) => {
    const prompt = random.pick(PROMPTS);
    return { kwargs: { prompt_to_repeat: prompt }, text: random.pick([`${prompt} ${sentences(random, 1)}`, `  ${prompt.toUpperCase()}\n${sentences(random, 1)}`, sentences(random, 2)]), variant: 'repeat' };
  },
  'startend:end_checker': (random) => {
    const phrase = random.pick(['Is there anything else I can help with?', 'Any other questions?', 'The end.']);
    return { kwargs: { end_phrase: random.pick([phrase, ` ${phrase} `]) }, text: `${sentences(random, 2)} ${random.pick([phrase, `"${phrase}"`, phrase.toLowerCase(), `${phrase} Bye.`, `${phrase}\n`])}`, variant: 'end' };
  },
  'startend:quotation': (random) => ({ kwargs: null, text: random.pick([`"${sentences(random, 2)}"`, ` "${sentences(random, 1)}" `, `"${sentences(random, 1)}`, '"', '""', sentences(random, 1)]), variant: 'quote' }),
  'change_case:capital_word_frequency': (random) => {
    const count = random.int(0, 5);
    const text = `${sentences(random, 1)} ${Array.from({ length: count }, () => random.pick([...WORDS.map((word) => word.toUpperCase()), 'COVID-19', 'U.S.A.', 'I', 'A', "DON'T", 'ÉTÉ'])).join(' ')} ok`;
    return { kwargs: { capital_frequency: near(random, count), capital_relation: relation(random) }, text, variant: `${count}` };
  },
  'change_case:english_capital': (random) => {
    const text = random.pick([LANGUAGE_TEXTS.en as string, sentences(random, 3)]);
    return { kwargs: null, text: random.pick([text.toUpperCase(), text, (LANGUAGE_TEXTS.fr as string).toUpperCase(), `${text.toUpperCase()} 123 ÉTÉ İ`, `${text.toUpperCase()} x`]), variant: 'upper' };
  },
  'change_case:english_lowercase': (random) => {
    const text = random.pick([LANGUAGE_TEXTS.en as string, sentences(random, 3)]);
    return { kwargs: null, text: random.pick([text.toLowerCase(), text, (LANGUAGE_TEXTS.es as string).toLowerCase()]), variant: 'lower' };
  },
  'punctuation:no_comma': (random) => ({ kwargs: null, text: random.pick([sentences(random, 2), 'No commas here at all.', 'One, two.', 'Full-width，comma']), variant: 'comma' }),
  'copy:repeat_phrase': (random) => {
    const phrase = random.pick(['the sea is very calm', 'all ships come home', 'winds blow from the west']);
    const parts = phrase.split(' ');
    const changed = (index: number) => parts.map((word, position) => (position === index ? 'X' : word)).join(' ');
    const times = random.int(1, 3);
    const copies = Array.from({ length: times }, () => random.pick([changed(1), changed(2), phrase, changed(0)]));
    return { kwargs: { phrase, small_n: near(random, times) || 1 }, text: `${copies.join('. ')}.`, variant: `${times}` };
  },
  'copy:copy': (random) => {
    const prompt = random.pick(PROMPTS);
    return { kwargs: { prompt_to_repeat: prompt }, text: random.pick([prompt, ` ${prompt.toLowerCase()} `, `${prompt} Sure.`]), variant: 'copy' };
  },
  'new:copy_span_idx': (random) => {
    const prompt = random.pick(PROMPTS);
    const start = random.int(1, 8);
    const end = start + random.int(1, 15);
    const span = prompt.slice(start, end).trim();
    return { kwargs: { prompt_to_repeat: prompt, n_start: start, n_end: end }, text: random.pick([span, span.toUpperCase(), `${span}!`, prompt]), variant: 'span' };
  },
  'detectable_format:sentence_hyphens': (random) => ({ kwargs: null, text: random.pick(['The sea is calm.-The sky is blue.', 'The sea is calm. - The sky is blue.', sentences(random, 2), 'One sentence only.', 'Well-known facts.-Second one.']), variant: 'hyphens' }),
  'keywords:no_adjacent_consecutive': (random) => ({ kwargs: null, text: random.pick(['apple banana', 'apple cherry', 'zebra apple moon', sentences(random, 1), 'a b', '']), variant: 'adjacent' }),
  'detectable_format:square_brackets': (random) => ({ kwargs: null, text: random.pick(['[the] [sea] [is] [calm]', '[the] sea', '[one]', '', '[a][b] [c]']), variant: 'brackets' }),
  'keywords:word_once': (random) => {
    const keyword = random.pick(WORDS);
    const times = random.int(0, 3);
    return { kwargs: { keyword }, text: `${Array.from({ length: times }, () => `A ${keyword} appears.`).join(' ')} ${sentences(random, 1)}`, variant: `${times}` };
  },
  'keywords:word_count_different_numbers': (random) => {
    const keyword = random.pick(WORDS);
    const times = random.int(0, 4);
    return { kwargs: { keyword, frequency: near(random, times), relation: relation(random) }, text: `${Array.from({ length: times }, () => `One ${keyword} more.`).join(' ')}`, variant: `${times}` };
  },
  'keywords:exclude_word_harder': (random) => {
    const keyword = random.pick(WORDS);
    return { kwargs: { keyword, instruction: random.pick(['Do not say it.', null]) }, text: random.pick([`The ${keyword} is big.`, `${keyword} first`, `The ${keyword}s are big.`, sentences(random, 1)]), variant: 'exclude' };
  },
  'paragraphs:paragraphs': (random) => ({ kwargs: null, text: paragraphs(random, random.int(1, 3), random.pick(['\n***\n', '\n\n'])), variant: 'divider' }),
  'paragraphs:paragraphs2': (random) => ({ kwargs: null, text: random.pick([paragraphs(random, random.int(1, 3), '\n\n'), `\n\n${paragraphs(random, 2, '\n\n')}\n\n`, `${sentences(random, 1)}\n\n\n\n${sentences(random, 1)}`]), variant: 'blank_lines' }),
  'first_word:first_word_sent': (random) => {
    const word = random.pick(['The', 'We', 'It']);
    const text = random.pick([`${word} sea is calm. ${word} ship sails. ${word.toLowerCase()} end.`, sentences(random, 2), `${word} one.`]);
    return { kwargs: { first_word: random.pick([word, word.toLowerCase(), [word], ` ${word}`]) }, text, variant: 'first' };
  },
  'first_word:first_word_answer': (random) => {
    const word = random.pick(WORDS);
    return { kwargs: { first_word: random.pick([word, capitalized(word)]) }, text: random.pick([`${capitalized(word)} ${sentences(random, 1)}`, `${word}, ${sentences(random, 1)}`, sentences(random, 1), '']), variant: 'first' };
  },
  'last_word:last_word_sent': (random) => {
    const word = random.pick(WORDS);
    return { kwargs: { last_word: random.pick([word, [word], capitalized(word)]) }, text: random.pick([`I love the ${word}. She saw a ${word}!`, `Near the ${word}. Far away.`, `The ${word}s.`]), variant: 'last' };
  },
  'last_word:last_word_answer': (random) => {
    const word = random.pick(WORDS);
    return { kwargs: { last_word: random.pick([word, capitalized(word)]) }, text: random.pick([`${sentences(random, 1)} ${word}.`, `${sentences(random, 1)} "${word}"`, sentences(random, 1), '']), variant: 'last' };
  },
  'detectable_format:bigram_wrapping': (random) => ({ kwargs: null, text: random.pick(['<<the sea>> <<is calm>>', '<<the sea>> is calm', '<<one>>', '<<a b>> <<c d>> <<e', '']), variant: 'bigram' }),
  'copy:copying_simple': (random) => {
    const prompt = random.pick(PROMPTS);
    return { kwargs: { prompt_to_repeat: prompt }, text: random.pick([prompt, `${prompt}\n`, prompt.slice(0, -1)]), variant: 'copy' };
  },
  'copy:copying_multiple': (random) => {
    const prompt = random.pick(PROMPTS);
    const times = random.int(1, 4);
    return { kwargs: { prompt_to_repeat: prompt, N: near(random, times) || 1 }, text: Array.from({ length: times }, () => random.pick([prompt, ` ${prompt.toUpperCase()} `, 'other'])).join(random.pick(['\n******\n', '******'])), variant: `${times}` };
  },
  'punctuation:punctuation_dot': (random) => ({ kwargs: null, text: random.pick([sentences(random, 1), 'no dots here', 'Number 3.5 only']), variant: 'dot' }),
  'punctuation:punctuation_exclamation': (random) => ({ kwargs: null, text: random.pick([sentences(random, 2), 'Wow!', 'calm words']), variant: 'exclamation' }),
  'count:lowercase_counting': (random) => {
    const text = sentences(random, random.int(1, 3));
    const count = (text.match(/\b[a-z]+\b/g) ?? []).length;
    return { kwargs: { N: near(random, count) || 1 }, text, variant: 'lowercase' };
  },
  'letters:letter_counting': (random) => {
    const text = sentences(random, random.int(1, 3));
    const count = (text.match(/[a-zA-Z]/g) ?? []).length;
    return { kwargs: { N: near(random, count) || 1, relation: random.pick(['less than', 'at least', 'more than']) }, text, variant: 'letters' };
  },
  'letters:letter_counting2': (random) => {
    const letter = random.pick(['a', 'e', 't', 'x']);
    const text = sentences(random, random.int(1, 3));
    const count = Array.from(text.toLowerCase()).filter((char) => char === letter).length;
    return { kwargs: { letter, let_frequency: near(random, count), let_relation: relation(random) }, text, variant: letter };
  },
  'count:counting_composition': (random) => {
    const sentence = 'The sea is calm.';
    const paragraph = `${sentence} ${sentence}`;
    return {
      kwargs: { n_sent: random.pick([2, 3]), n_words: random.pick([5, 4]) },
      text: random.pick([`${paragraph}\n***\n${paragraph}\n***\n${paragraph}`, `${paragraph}\n***\n${paragraph}`, `***\n${paragraph}\n***\n${paragraph}\n***\n${paragraph}`, sentences(random, 3)]),
      variant: 'composition',
    };
  },
  'count:count_unique': (random) => ({ kwargs: null, text: random.pick(['each word only once', 'the sea the sea', sentences(random, 1), '']), variant: 'unique' }),
  'count:count_increment_word': (random) => {
    const [first, second] = random.shuffled(WORDS) as [string, string];
    return { kwargs: { keyword1: first, keyword2: second }, text: random.pick([`A ${first}. A ${second} and a ${second}.`, `A ${first} and ${first}. A ${second}.`, sentences(random, 1)]), variant: 'increment' };
  },
  'keywords:palindrome': (random) => ({ kwargs: null, text: random.pick(['A racecar went by.', 'The level is high', sentences(random, 1), 'noon', '']), variant: 'palindrome' }),
  'keywords:keyword_specific_position': (random) => {
    const keyword = random.pick(WORDS);
    return { kwargs: { keyword: random.pick([keyword, [keyword]]), n: random.int(1, 3), m: random.int(1, 4) }, text: random.pick([`The ${keyword} rose. A big ${keyword} fell. Then ${keyword} ${keyword} came.`, sentences(random, 2)]), variant: 'position' };
  },
  'keywords:start_end': (random) => ({ kwargs: null, text: random.pick(['Sea is wide, said the sea', 'sea and sky', 'The end of the story, the', sentences(random, 1), 'one']), variant: 'start_end' }),
};
const IDS = Object.keys(BUILDERS);

/** Kwargs upstream refuses (TypeError, ValueError) without drawing anything random: every side scores "not followed". */
function broken(random: Random, id: string, built: Built): { kwargs: unknown; variant: string } {
  const kwargs = built.kwargs ?? {};
  const choice = random.pick(['unexpected_key', 'wrong_relation', 'string_number', 'not_object', 'unknown_id', 'none_values']);
  if (choice === 'unexpected_key') return { kwargs: { ...kwargs, unexpected: 1 }, variant: choice };
  if (choice === 'wrong_relation' && 'relation' in kwargs) return { kwargs: { ...kwargs, relation: 'more than' }, variant: choice };
  if (choice === 'string_number') {
    const key = Object.keys(kwargs).find((name) => typeof kwargs[name] === 'number');
    if (key !== undefined) return { kwargs: { ...kwargs, [key]: String(kwargs[key]) }, variant: choice };
  }
  if (choice === 'unknown_id') return { kwargs, variant: choice };
  if (choice === 'not_object') return { kwargs: random.pick([[1, 2], 'kwargs', 3]), variant: choice };
  // None values are dropped before building: the same as leaving them out (only for ids without kwargs).
  if (choice === 'none_values' && Object.keys(kwargs).length === 0) return { kwargs: { anything: null }, variant: choice };
  return { kwargs, variant: `${choice}:${id}` };
}

type Shape = 'text' | 'empty' | 'tool_call_last' | 'truncated' | 'two_messages' | 'refusal_first';

function output(random: Random, text: string, index: number): { shape: Shape; response: Record<string, unknown> } {
  const roll = random.int(0, 99);
  const shape: Shape = roll < 3 ? 'empty' : roll < 6 ? 'tool_call_last' : roll < 11 ? 'truncated' : roll < 15 ? 'two_messages' : 'text';
  if (shape === 'empty') return { shape, response: response([], index) };
  if (shape === 'tool_call_last') return { shape, response: response([textOutput(text, index), callOutput('lookup', { query: 'sea' }, index)], index) };
  if (shape === 'truncated') return { shape, response: response([textOutput(truncate(text, random.pick([0.3, 0.7, 0.95])), index)], index) };
  // Only the last item's first part counts.
  if (shape === 'two_messages') return { shape, response: response([textOutput(text, index), textOutput(random.pick(SENTENCES), index + 1)], index) };
  return { shape, response: response([textOutput(text, index)], index) };
}

function generated(random: Random, index: number): ParityCase {
  const id = random.pick(IDS);
  const built = (BUILDERS[id] as Builder)(random);
  const instructionIds: unknown[] = [id];
  const kwargsList: unknown[] = [built.kwargs];
  let variant = built.variant;
  if (random.chance(0.06)) {
    const bad = broken(random, id, built);
    kwargsList[0] = bad.kwargs;
    variant = bad.variant;
    if (bad.variant === 'unknown_id') instructionIds[0] = random.pick(['keywords:key_sentences', 'detectable_format:rephrase', 'no:such_id']);
  }
  // Other ids checked against the same text (their own kwargs), sometimes a kwargs list of another length (zip).
  for (let extra = random.pick([0, 0, 1, 1, 2]); extra > 0; extra--) {
    const other = random.pick(IDS);
    instructionIds.push(other);
    kwargsList.push((BUILDERS[other] as Builder)(random).kwargs);
  }
  if (random.chance(0.03)) kwargsList.pop();
  const { shape, response: answer } = output(random, built.text, index);
  const prompt = random.pick(PROMPTS);
  const format = random.pick(['legacy', 'legacy', 'metadata', 'metadata', 'both']);
  const mode = random.pick([undefined, undefined, 'binary', 'fraction', 'fraction']);
  const metadata: Record<string, unknown> = { instruction_id_list: instructionIds, prompt, kwargs: kwargsList };
  if (mode !== undefined) metadata.grading_mode = mode;
  let verify: Record<string, unknown> = { id: index, responses_create_params: { input: [{ role: 'user', content: prompt }] }, response: answer };
  if (format === 'legacy') verify = { ...verify, ...metadata };
  else if (format === 'metadata') verify.verifier_metadata = metadata;
  // Both: top-level fields that verifier_metadata overrides, and one it lacks.
  else verify = { ...verify, instruction_id_list: ['punctuation:no_comma'], kwargs: [null], prompt: 'top-level', grading_mode: mode ?? 'fraction', verifier_metadata: { instruction_id_list: instructionIds, kwargs: kwargsList } };
  return { kind: shape === 'text' ? id : shape, detail: `${id}/${variant}/${format}/${mode ?? 'default'}`, verify };
}

/** Rows both sides refuse or grade with no instruction at all. */
function requestCase(random: Random, index: number): ParityCase {
  const base = { id: index, responses_create_params: { input: [{ role: 'user', content: 'x' }] }, response: response([textOutput('The sea.', index)], index) };
  const shape = random.pick(['empty_list', 'empty_list_fraction', 'missing_kwargs', 'missing_prompt', 'null_prompt', 'bad_mode', 'null_mode', 'null_metadata', 'string_metadata']);
  const full = { instruction_id_list: ['punctuation:no_comma'], prompt: 'p', kwargs: [null] };
  const bodies: Record<string, Record<string, unknown>> = {
    empty_list: { verifier_metadata: { instruction_id_list: [], prompt: 'p', kwargs: [] } },
    empty_list_fraction: { instruction_id_list: [], prompt: 'p', kwargs: [], grading_mode: 'fraction' },
    missing_kwargs: { verifier_metadata: { instruction_id_list: ['punctuation:no_comma'], prompt: 'p' } },
    missing_prompt: { instruction_id_list: ['punctuation:no_comma'], kwargs: [null] },
    null_prompt: { verifier_metadata: { ...full, prompt: null } },
    bad_mode: { verifier_metadata: { ...full, grading_mode: 'partial' } },
    null_mode: { ...full, grading_mode: null },
    null_metadata: { ...full, verifier_metadata: null },
    string_metadata: { ...full, verifier_metadata: 'metadata' },
  };
  return { kind: `request:${shape}`, verify: { ...base, ...bodies[shape] } };
}

/** Upstream's server imports verifiable_instructions and counts sentences with NLTK's punkt_tab: both local-only. */
function unavailable(python: PythonSetup): string | undefined {
  const probe = spawnSync(python.executable, ['-c', 'import verifiable_instructions, nltk; nltk.data.find("tokenizers/punkt_tab/english/")'], {
    // nltk >= 3.9 refuses imports from a module inside the working directory's tree (.venv is inside the repo).
    cwd: python.sitePackages,
    encoding: 'utf8',
  });
  if (probe.status === 0) return undefined;
  const missing = /No module named|ModuleNotFoundError/.test(probe.stderr) ? 'verifiable_instructions not installed' : 'NLTK punkt_tab data not found';
  return `${missing}; run \`${SETUP}\` (local only, docs/parity.md)`;
}

export const instructionFollowing: ParityEnvironment = {
  name: 'instruction_following',
  configs: { ngym: 'instruction_following.yaml', upstream: 'instruction_following.yaml' },
  fields: FIELDS,
  unavailable,
  generate(random, count) {
    const cases = [...dataRows('instruction_following', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED)), ...upstreamRolloutCases('instruction_following', COMPUTED)];
    for (let index = cases.length; index < count; index += 1) cases.push(random.chance(0.03) ? requestCase(random, index) : generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};
