import { describe, expect, it } from 'vitest';
import { basicArithmetic } from './basic-arithmetic.ts';
import { createEntries, datasetRow } from './dataset.ts';
import { TaskConfigError, TASKS } from './index.ts';
import { knightsKnaves } from './knights-knaves.ts';
import { parseFormula, propositionalLogic } from './propositional-logic.ts';
import type { TaskEntry } from './task.ts';
import { wordSorting } from './word-sorting.ts';

const entries = (task: string, size: number, seed = 42, config: Record<string, unknown> = {}) => [...createEntries({ tasks: [task], size, seed, config })];

describe('knights_knaves', () => {
  /** Independent check: each islander's claim must be true exactly when they are a knight. */
  function consistent(statement: unknown[], knights: boolean[]): boolean {
    const leaf = (claim: unknown[]) => (claim[0] === 'telling-truth') === (knights[claim[1] as number] === true);
    const parts = statement.slice(1) as unknown[][];
    switch (statement[0]) {
      case 'not':
        return !leaf(parts[0]!);
      case 'and':
        return parts.every(leaf);
      case 'or':
        return parts.some(leaf);
      case '->':
        return !leaf(parts[0]!) || leaf(parts[1]!);
      case '<=>':
        return leaf(parts[0]!) === leaf(parts[1]!);
      default:
        return leaf(statement);
    }
  }

  it('generates puzzles with exactly one consistent assignment, stated in the answer', () => {
    for (const people of [2, 3, 4]) {
      for (const entry of entries('knights_knaves', 60, 5, { n_people: people })) {
        const statements = entry.metadata.statements as unknown[][];
        const assignments = Array.from({ length: 2 ** people }, (_, mask) => Array.from({ length: people }, (_, person) => ((mask >> person) & 1) === 1));
        const valid = assignments.filter((knights) => statements.every((statement, person) => consistent(statement, knights) === knights[person]));
        expect(valid).toHaveLength(1);
        expect(entry.metadata.solution).toEqual(valid[0]);
        const terms = entry.metadata.knight_knave_terms as Record<string, string>;
        const names = entry.metadata.names as string[];
        names.forEach((name, person) => expect(entry.answer).toContain(`${name} is ${valid[0]![person] ? terms.a_knight : terms.a_knave}`));
        expect(knightsKnaves.score(entry.answer, entry)).toBe(1);
      }
    }
  });

  it('scores like upstream: pair sets, partial credit 0.3 + 0.7 k/n, else 0', () => {
    const entry: TaskEntry = { question: 'q', answer: 'Zoey is a fool, and Riley is a sage.', metadata: {} };
    const score = (answer: string | null) => knightsKnaves.score(answer, entry);
    expect(score('Riley is a sage and Zoey is a fool')).toBe(1);
    expect(score('ZOEY is a FOOL, RILEY is a SAGE')).toBe(1);
    expect(score('Zoey (fool), Riley (sage)')).toBe(1);
    expect(score('Zoey is a sage, and Riley is a sage.')).toBe(0.3 + (0.7 * 1) / 2);
    expect(score('Zoey is a sage, and Riley is a fool.')).toBe(0);
    expect(score('Zoey is a fool.')).toBe(0);
    expect(score('')).toBe(0);
    expect(score(null)).toBe(0);
  });
});

describe('basic_arithmetic', () => {
  /** Independent evaluation with exact integers; every division must leave no remainder. */
  function evaluate(expression: string): bigint {
    const tokens = expression.match(/\d+|[-+*/()]/g) ?? [];
    let position = 0;
    const peek = () => tokens[position];
    const unary = (): bigint => {
      const token = tokens[position++];
      if (token === '-') return -unary();
      if (token === '(') {
        const value = sum();
        expect(tokens[position++]).toBe(')');
        return value;
      }
      return BigInt(token as string);
    };
    const product = (): bigint => {
      let value = unary();
      while (peek() === '*' || peek() === '/') {
        const operator = tokens[position++];
        const right = unary();
        if (operator === '*') value *= right;
        else {
          expect(value % right).toBe(0n);
          value /= right;
        }
      }
      return value;
    };
    const sum = (): bigint => {
      let value = product();
      while (peek() === '+' || peek() === '-') value = tokens[position++] === '+' ? value + product() : value - product();
      return value;
    };
    const value = sum();
    expect(position).toBe(tokens.length);
    return value;
  }

  it('answers are the exact value of the expression, with exact divisions only', () => {
    for (const whitespace of ['single', 'no_space', 'random']) {
      for (const entry of entries('basic_arithmetic', 200, 9, { whitespace })) {
        const expression = entry.metadata.expression as string;
        expect(entry.question).toBe(`Calculate ${expression}.`);
        expect(evaluate(expression).toString()).toBe(entry.answer);
        expect(entry.metadata.num_terms as number).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it('respects operators and the natural format', () => {
    const only = entries('basic_arithmetic', 50, 1, { operators: ['+', '-'], allow_parentheses: false, format_style: 'natural' });
    for (const entry of only) {
      expect(entry.metadata.expression).not.toMatch(/[*/()]/);
      expect(entry.question).toMatch(/^(What is .*\?|Solve .*\.|Compute .*\.|Evaluate: .*\.)$/);
    }
  });

  it("scores with upstream's default rule", () => {
    const entry: TaskEntry = { question: 'q', answer: '-5347', metadata: {} };
    expect(basicArithmetic.score('-5347', entry)).toBe(1);
    expect(basicArithmetic.score('The answer is -5347', entry)).toBe(5 / 19);
    expect(basicArithmetic.score('-5347 ✅', entry)).toBe(5 / 7);
    expect(basicArithmetic.score('5347', entry)).toBe(0);
    expect(basicArithmetic.score('', entry)).toBe(0);
  });
});

describe('word_sorting', () => {
  it('sorts by code point, ascending or descending', () => {
    const found = entries('word_sorting', 100, 4, { transformation: 'randomcase' });
    expect(new Set(found.map((entry) => entry.metadata.direction))).toEqual(new Set(['ascending', 'descending']));
    for (const entry of found) {
      const words = entry.metadata.transformed_words as string[];
      const ascending = [...words].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const expected = entry.metadata.direction === 'ascending' ? ascending : ascending.reverse();
      expect(entry.metadata.sorted_words).toEqual(expected);
      expect(entry.answer).toBe(expected.join(', '));
      expect(entry.question).toContain(`return them as a comma-separated list: ${words.join(', ')}\n`);
    }
  });

  it('scores 1.0 for the list, else the share of right positions, at least 0.2 for the right words in another order', () => {
    const entry: TaskEntry = { question: 'q', answer: 'River, agenda, branch', metadata: { sorted_words: ['River', 'agenda', 'branch'] } };
    expect(wordSorting.score('River, agenda, branch', entry)).toBe(1);
    expect(wordSorting.score('River,agenda ,  branch', entry)).toBe(1);
    expect(wordSorting.score('agenda, branch, River', entry)).toBe(0.2);
    expect(wordSorting.score('agenda, River', entry)).toBe(0);
    expect(wordSorting.score('River, agenda', entry)).toBe(2 / 3);
    expect(wordSorting.score('River, branch, agenda', entry)).toBe(1 / 3);
    expect(wordSorting.score('River, agenda, brunch', entry)).toBe(2 / 3);
    expect(wordSorting.score('River agenda branch', entry)).toBe(0);
    expect(() => wordSorting.score('x', { ...entry, metadata: { sorted_words: [] } })).toThrow(/empty/); // the server scores it 0
  });
});

describe('propositional_logic', () => {
  it('parses with upstream precedence (↔ < → < ∨ < ∧, rightmost split) and ¬ prefix', () => {
    expect(parseFormula('P ∧ Q ∨ R')).toEqual({ operator: '∨', left: { operator: '∧', left: { atom: 'P' }, right: { atom: 'Q' } }, right: { atom: 'R' } });
    expect(parseFormula('P → Q → R')).toEqual({ operator: '→', left: { operator: '→', left: { atom: 'P' }, right: { atom: 'Q' } }, right: { atom: 'R' } });
    expect(parseFormula('¬(P ↔ Q)')).toEqual({ not: { operator: '↔', left: { atom: 'P' }, right: { atom: 'Q' } } });
    expect(parseFormula('((P))')).toEqual({ atom: 'P' });
    expect(() => parseFormula('P ∧')).toThrow('Empty expression');
  });

  it('every generated example answer is a valid, non-trivial conclusion', () => {
    for (const entry of entries('propositional_logic', 80, 11)) {
      expect(entry.answer).toBeNull();
      const example = entry.metadata.example_answer as string;
      // Upstream falls back to the first variable (trivial, 0.25) when no conclusion is found in 100 tries.
      expect([1, 0.25]).toContain(propositionalLogic.score(example, entry));
      expect(entry.question).toContain('Given:\n1. ');
    }
  });

  it('scores 1.0 / 0.25 / 0.05 / 0 as reasoning-gym 0.1.25', () => {
    const entry: TaskEntry = { question: 'q', answer: null, metadata: { premises: ['(P → Q)', 'P'], variables: ['P', 'Q'] } };
    const score = (answer: string) => propositionalLogic.score(answer, entry);
    expect(score('Q')).toBe(0.25); // a lone atom is trivial
    expect(score('(Q ∧ P)')).toBe(1);
    expect(score('(Q ∨ ¬Q)')).toBe(0.25); // a tautology
    expect(score('¬Q')).toBe(0.05);
    expect(score('(Q ∧ R)')).toBe(0); // R is not a variable of the task
    expect(score('Q ∧')).toBe(0); // does not parse
    expect(score('')).toBe(0);
  });
});

describe('datasets', () => {
  it('same seed, same dataset; mixes tasks with equal weight', () => {
    const options = { tasks: [...TASKS.keys()], size: 500, seed: 42 };
    const first = [...createEntries(options)];
    expect([...createEntries(options)]).toEqual(first);
    const counts = new Map<string, number>();
    for (const entry of first) counts.set(entry.metadata.source_dataset as string, (counts.get(entry.metadata.source_dataset as string) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...TASKS.keys()].sort());
    for (const count of counts.values()) expect(count).toBeGreaterThan(60);
    first.forEach((entry, index) => expect(entry.metadata.source_index).toBe(index));
  });

  it('every oracle answer scores 1.0 with its own task', () => {
    for (const entry of createEntries({ tasks: ['mini_sudoku', 'knights_knaves', 'basic_arithmetic', 'word_sorting'], size: 200, seed: 3 })) {
      const task = TASKS.get(entry.metadata.source_dataset as string);
      expect(task?.score(entry.answer, entry)).toBe(1);
    }
  });

  it('rows have the shape create_dataset.py writes, routed to the agent', () => {
    const [entry] = entries('knights_knaves', 1);
    expect(datasetRow(entry!)).toEqual({
      responses_create_params: { input: [{ role: 'user', content: entry!.question }] },
      question: entry!.question,
      answer: entry!.answer,
      metadata: entry!.metadata,
      agent_ref: { type: 'responses_api_agents', name: 'reasoning_gym_simple_agent' },
    });
  });

  it('rejects unknown tasks, bad configs and configs of other tasks, naming the problem', () => {
    expect(() => createEntries({ tasks: ['sudoku_9x9'], size: 1, seed: 1 })).toThrow(TaskConfigError);
    expect(() => createEntries({ tasks: ['sudoku_9x9'], size: 1, seed: 1 })).toThrow(/Unknown task 'sudoku_9x9'\. Available tasks: mini_sudoku/);
    expect(() => createEntries({ tasks: ['mini_sudoku'], size: 1, seed: 1, config: { min_empty: 9, max_empty: 4 } })).toThrow(/max_empty must be >= min_empty/);
    expect(() => createEntries({ tasks: ['mini_sudoku'], size: 1, seed: 1, config: { n_people: 3 } })).toThrow(/unknown key\(s\) n_people/);
    expect(() => createEntries({ tasks: ['mini_sudoku', 'knights_knaves'], size: 1, seed: 1, config: { word_sorting: {} } })).toThrow(/keyed by task name/);
    expect(() => createEntries({ tasks: ['mini_sudoku'], size: -1, seed: 1 })).toThrow(/size/);
  });
});
