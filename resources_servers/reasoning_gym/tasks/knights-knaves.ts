/**
 * knights_knaves: islanders who always tell the truth (knights) or always lie (knaves) each make one
 * statement; the model names who is which. Puzzles are sampled until exactly one assignment is consistent.
 * Scoring is upstream's: both answers become sets of (name, role) pairs; equal sets score 1.0, sets of the
 * same size sharing k of n pairs score 0.3 + 0.7 k/n, anything else 0.
 */
import { pythonSplit, pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';
import type { SeededRandom } from './random.ts';
import { defineTask, type TaskEntry } from './task.ts';

type Leaf = ['telling-truth' | 'lying', number];
type Statement = Leaf | ['not', Leaf] | ['and' | 'or', ...Leaf[]] | ['->' | '<=>', Leaf, Leaf];

/** Truth-teller/liar names; the scorer recognises exactly these role words. */
const ROLE_PAIRS: readonly [string, string][] = [
  ['a knight', 'a knave'],
  ['a pioneer', 'a laggard'],
  ['a saint', 'a sinner'],
  ['a hero', 'a villain'],
  ['an angel', 'a devil'],
  ['an altruist', 'an egoist'],
  ['a sage', 'a fool'],
];
const ROLE_WORDS = new Set(ROLE_PAIRS.flatMap((pair) => pair.map((phrase) => phrase.split(' ')[1] as string)));

const NAMES = [
  'Ada', 'Ben', 'Chloe', 'Daniel', 'Elena', 'Felix', 'Grace', 'Henry', 'Iris', 'Jack', 'Kate', 'Leo', 'Maya', 'Noah',
  'Olivia', 'Paul', 'Quinn', 'Rosa', 'Sam', 'Tara', 'Uma', 'Victor', 'Wendy', 'Xavier', 'Yara', 'Zoe', 'Aaron', 'Bella',
  'Caleb', 'Diana', 'Ethan', 'Fiona', 'George', 'Hannah', 'Isaac', 'Julia', 'Kevin', 'Lily', 'Mason', 'Nora', 'Oscar',
  'Penny', 'Riley', 'Sofia', 'Thomas', 'Violet', 'William', 'Zach',
];

const SAYINGS = [
  '{name} said that {content}.',
  '{name} told you that {content}.',
  '{name} said, "{content}."',
  '{name} stated, "{content}".',
  'According to {name}, "{content}".',
  'In {name}\'s words: "{content}".',
  '{name} remarked, "{content}".',
  '"{content}," {name} declared.',
  '{name} was heard saying, "{content}".',
  '{name} expressed that {content}.',
  '"{content}" - {name}.',
  'As {name} put it, "{content}".',
  '{name} asserted: "{content}".',
  '"{content}," {name} mentioned.',
  '{name} commented, "{content}".',
  'In a statement by {name}: "{content}".',
  '{name} noted, "{content}".',
  '"{content}," {name} claimed.',
];

function leafValue([kind, person]: Leaf, knights: boolean[]): boolean {
  return kind === 'telling-truth' ? knights[person] === true : knights[person] === false;
}

function statementValue(statement: Statement, knights: boolean[]): boolean {
  switch (statement[0]) {
    case 'telling-truth':
    case 'lying':
      return leafValue(statement as Leaf, knights);
    case 'not':
      return !leafValue(statement[1] as Leaf, knights);
    case 'and':
      return (statement.slice(1) as Leaf[]).every((leaf) => leafValue(leaf, knights));
    case 'or':
      return (statement.slice(1) as Leaf[]).some((leaf) => leafValue(leaf, knights));
    case '->':
      return !leafValue(statement[1] as Leaf, knights) || leafValue(statement[2] as Leaf, knights);
    case '<=>':
      return leafValue(statement[1] as Leaf, knights) === leafValue(statement[2] as Leaf, knights);
  }
}

/** Every assignment (true = knight) under which each person's statement is true exactly when they are a knight. */
function solutions(statements: Statement[]): boolean[][] {
  const found: boolean[][] = [];
  const people = statements.length;
  for (let mask = 0; mask < 2 ** people; mask++) {
    // Knights first, matching upstream's itertools.product([True, False]) order.
    const knights = Array.from({ length: people }, (_, person) => ((mask >> (people - 1 - person)) & 1) === 0);
    if (statements.every((statement, person) => statementValue(statement, knights) === knights[person])) found.push(knights);
  }
  return found;
}

function sampleLeaf(random: SeededRandom, speaker: number, people: number): Leaf {
  for (;;) {
    const kind = random.choice(['telling-truth', 'lying'] as const);
    const person = random.int(0, people - 1);
    if (!(kind === 'lying' && person === speaker)) return [kind, person];
  }
}

function distinctLeaves(random: SeededRandom, speaker: number, people: number, count: number): Leaf[] {
  const leaves: Leaf[] = [];
  const seen = new Set<string>();
  while (leaves.length < count) {
    const leaf = sampleLeaf(random, speaker, people);
    if (seen.has(leaf.join())) continue;
    seen.add(leaf.join());
    leaves.push(leaf);
  }
  return leaves;
}

function sampleStatement(random: SeededRandom, speaker: number, config: KnightsKnavesConfig): Statement {
  const people = config.n_people;
  const distinctAvailable = 2 * people - 1; // every (kind, person) except "I am lying"
  const dice = random.int(0, 5);
  if (config.depth_constraint === 1 || dice === 0 || distinctAvailable < 2) return sampleLeaf(random, speaker, people);
  if (dice === 1) return ['not', sampleLeaf(random, speaker, people)];
  if (dice === 2 || dice === 3) {
    const count = random.int(2, Math.min(config.width_constraint, distinctAvailable));
    return [dice === 2 ? 'and' : 'or', ...distinctLeaves(random, speaker, people, count)];
  }
  const [left, right] = distinctLeaves(random, speaker, people, 2) as [Leaf, Leaf];
  return [dice === 4 ? '->' : '<=>', left, right];
}

interface Terms {
  knight: string;
  knave: string;
  a_knight: string;
  a_knave: string;
  Knight: string;
  Knave: string;
}

function describe(statement: Statement, names: string[], terms: Terms): string {
  const leaf = ([kind, person]: Leaf, negated = false) => `${names[person]} is ${negated ? 'not ' : ''}${kind === 'telling-truth' ? terms.a_knight : terms.a_knave}`;
  switch (statement[0]) {
    case 'not':
      return leaf(statement[1] as Leaf, true);
    case 'and':
    case 'or':
      return (statement.slice(1) as Leaf[]).map((part) => leaf(part)).join(` ${statement[0]} `);
    case '->':
      return `If ${leaf(statement[1] as Leaf)} then ${leaf(statement[2] as Leaf)}`;
    case '<=>':
      return `${leaf(statement[1] as Leaf)} if and only if ${leaf(statement[2] as Leaf)}`;
    default:
      return leaf(statement as Leaf);
  }
}

/** "A, B, and C" (upstream's list style); a single item alone. */
function listing(items: string[]): string {
  return items.length === 1 ? (items[0] as string) : `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** Upstream's answer normalisation: the set of (name, role) pairs, as "name role" strings. */
function rolePairs(answer: string): Set<string> {
  const cleaned = pythonStrip(answer.toLowerCase()).replaceAll('.', ' ').replaceAll(',', ' ').replaceAll(')', ' ').replaceAll('(', ' ');
  const pairs = new Set<string>();
  let name: string | undefined;
  for (const part of pythonSplit(cleaned.replaceAll(' and ', ' '))) {
    if (part === 'is' || part === 'a' || part === 'an') continue;
    if (ROLE_WORDS.has(part)) {
      if (name) pairs.add(`${name} ${part}`);
      name = undefined;
    } else {
      name = part;
    }
  }
  return pairs;
}

function scoreKnightsKnaves(answer: string | null, entry: TaskEntry): number {
  if (answer === null || answer.length === 0) return 0;
  if (typeof entry.answer !== 'string') throw new TypeError('the entry has no oracle answer');
  const oracle = rolePairs(entry.answer);
  const given = rolePairs(answer);
  const matching = [...given].filter((pair) => oracle.has(pair)).length;
  if (matching === oracle.size && given.size === oracle.size) return 1;
  if (oracle.size === given.size && matching > 0) return 0.3 + (0.7 * matching) / oracle.size;
  return 0;
}

const KnightsKnavesConfig = z.strictObject({
  n_people: z.number().int().min(1).max(8).default(2),
  /** 1: every statement is about one person; 2: statements combine two or more with not/and/or/if/iff. */
  depth_constraint: z.number().int().min(1).max(2).default(2),
  /** Most clauses in an and/or statement. */
  width_constraint: z.number().int().min(2).default(2),
});
type KnightsKnavesConfig = z.infer<typeof KnightsKnavesConfig>;

export const knightsKnaves = defineTask({
  name: 'knights_knaves',
  category: 'logic',
  description: 'Truth-tellers and liars: deduce who is which from their statements.',
  config: KnightsKnavesConfig,
  difficulty: (config) => ({ n_people: config.n_people, depth_constraint: config.depth_constraint, width_constraint: config.width_constraint }),
  generate: (random, config) => {
    let statements: Statement[] | undefined;
    let solution: boolean[] | undefined;
    for (let attempt = 0; attempt < 1000 && solution === undefined; attempt++) {
      const candidate = Array.from({ length: config.n_people }, (_, speaker) => sampleStatement(random, speaker, config));
      const found = solutions(candidate);
      if (found.length === 1) [statements, solution] = [candidate, found[0]];
    }
    if (statements === undefined || solution === undefined) throw new Error('no knights and knaves puzzle with a unique solution in 1000 attempts');
    const names = random.sample(NAMES, config.n_people);
    const [knightPhrase, knavePhrase] = random.choice(ROLE_PAIRS);
    const knight = knightPhrase.split(' ')[1] as string;
    const knave = knavePhrase.split(' ')[1] as string;
    const terms: Terms = {
      knight,
      knave,
      a_knight: knightPhrase,
      a_knave: knavePhrase,
      Knight: knight[0]?.toUpperCase() + knight.slice(1),
      Knave: knave[0]?.toUpperCase() + knave.slice(1),
    };
    const sayings = statements.map((statement, person) =>
      random
        .choice(SAYINGS)
        .replace('{name}', () => names[person] as string)
        .replace('{content}', () => describe(statement, names, terms)),
    );
    const people = config.n_people === 1 ? '1 inhabitant' : `${config.n_people} inhabitants`;
    const format = listing(names.map((name) => `${name} is a ${knight}/${knave}`));
    const question =
      `A very special island is inhabited only by ${knight}s and ${knave}s. ${terms.Knight}s always tell the truth, and ${knave}s always lie. ` +
      `You meet ${people}: ${listing(names)}.${sayings.map((saying) => ` ${saying}`).join('')} ` +
      `So who is ${terms.a_knight} and who is ${terms.a_knave}? (Format your answer like: "${format}")`;
    const answer = `${listing(names.map((name, person) => `${name} is ${solution[person] ? terms.a_knight : terms.a_knave}`))}.`;
    return { question, answer, metadata: { statements, solution, names, knight_knave_terms: terms } };
  },
  score: scoreKnightsKnaves,
});
