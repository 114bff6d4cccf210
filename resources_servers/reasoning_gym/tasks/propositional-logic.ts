/**
 * propositional_logic: given premises over variables P, Q, R, ..., state a conclusion that follows from
 * them. Scoring is upstream's, which reads the answer with upstream's parser (operators by precedence
 * ↔ < → < ∨ < ∧, split at the rightmost one outside parentheses; ¬ prefix; anything else is an atom):
 *   1.0  a non-trivial valid conclusion (true whenever every premise is true)
 *   0.25 a trivial one (a lone atom or a tautology)
 *   0.05 a conclusion that does not follow
 *   0    an answer using capital letters other than the variables, or that does not parse (reasoning-gym
 *        0.1.25, which upstream 0.7.0 installs; ngym gave 0.01 before the parity run found it)
 */
import { pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';
import type { SeededRandom } from './random.ts';
import { defineTask, type TaskEntry } from './task.ts';

const AND = '∧';
const OR = '∨';
const NOT = '¬';
const IMPLIES = '→';
const IFF = '↔';
type BinaryOperator = typeof AND | typeof OR | typeof IMPLIES | typeof IFF;

type Formula = { atom: string } | { not: Formula } | { operator: BinaryOperator; left: Formula; right: Formula };

const QUESTION = `The following question is a propositional logic reasoning question.

In the question we provide a list of premises. The task is to infer a correct conclusion from the premise.

FORMAT INSTRUCTIONS:
- Return the conclusion logic statement, as your final answer.
- Use the following notation to denote symbols
    - OR = ∨
    - AND = ∧
    - IMPLIES = →
    - IFF = ↔
    - NOT = ¬

Here is the question: 
`;

/** Python's recursion limit ends upstream's parser on deeper input; the server scores that as 0. */
const MAX_PARSE_DEPTH = 950;
/** Truth tables beyond this many atoms would block the server; such answers count as not following. */
const MAX_ATOMS = 16;

class ParseError extends Error {
  override name = 'ValueError';
}

function parse(chars: string[], depth = 0): Formula {
  if (depth > MAX_PARSE_DEPTH) throw new RangeError('maximum recursion depth exceeded');
  const text = Array.from(pythonStrip(chars.join('')));
  if (text.length === 0) throw new ParseError('Empty expression');
  if (text[0] === '(' && text[text.length - 1] === ')') {
    let level = 0;
    let enclosed = true;
    for (const char of text.slice(1, -1)) {
      if (char === '(') level++;
      else if (char === ')' && --level < 0) {
        enclosed = false;
        break;
      }
    }
    if (enclosed && level === 0) return parse(text.slice(1, -1), depth + 1);
  }
  for (const operator of [IFF, IMPLIES, OR, AND] as const) {
    let level = 0;
    for (let index = text.length - 1; index >= 0; index--) {
      const char = text[index];
      if (char === ')') level++;
      else if (char === '(') level--;
      else if (level === 0 && char === operator) {
        return { operator, left: parse(text.slice(0, index), depth + 1), right: parse(text.slice(index + 1), depth + 1) };
      }
    }
  }
  if (text[0] === NOT) return { not: parse(text.slice(1), depth + 1) };
  return { atom: text.join('') };
}

export function parseFormula(text: string): Formula {
  return parse(Array.from(text));
}

function formulaText(formula: Formula): string {
  if ('atom' in formula) return formula.atom;
  if ('not' in formula) return `${NOT}${formulaText(formula.not)}`;
  return `(${formulaText(formula.left)} ${formula.operator} ${formulaText(formula.right)})`;
}

function evaluate(formula: Formula, values: Map<string, boolean>): boolean {
  if ('atom' in formula) return values.get(formula.atom) === true;
  if ('not' in formula) return !evaluate(formula.not, values);
  const left = evaluate(formula.left, values);
  switch (formula.operator) {
    case AND:
      return left && evaluate(formula.right, values);
    case OR:
      return left || evaluate(formula.right, values);
    case IMPLIES:
      return !left || evaluate(formula.right, values);
    case IFF:
      return left === evaluate(formula.right, values);
  }
}

function collectAtoms(formula: Formula, into: Set<string>): Set<string> {
  if ('atom' in formula) into.add(formula.atom);
  else if ('not' in formula) collectAtoms(formula.not, into);
  else {
    collectAtoms(formula.left, into);
    collectAtoms(formula.right, into);
  }
  return into;
}

function* assignments(atoms: Set<string>): Generator<Map<string, boolean>> {
  const names = [...atoms];
  for (let mask = 0; mask < 2 ** names.length; mask++) yield new Map(names.map((name, bit) => [name, ((mask >> bit) & 1) === 1]));
}

/** True when `conclusion` holds under every assignment that makes all premises true. */
function follows(premises: Formula[], conclusion: Formula): boolean {
  const atoms = new Set<string>();
  for (const formula of [...premises, conclusion]) collectAtoms(formula, atoms);
  if (atoms.size > MAX_ATOMS) return false;
  for (const values of assignments(atoms)) {
    if (premises.every((premise) => evaluate(premise, values)) && !evaluate(conclusion, values)) return false;
  }
  return true;
}

/** Upstream calls a lone atom trivial, and so is any tautology. */
function isTrivial(formula: Formula): boolean {
  if ('atom' in formula) return true;
  const atoms = collectAtoms(formula, new Set());
  if (atoms.size > MAX_ATOMS) return false;
  for (const values of assignments(atoms)) if (!evaluate(formula, values)) return false;
  return true;
}

/** Upstream's simplification of candidate conclusions: ¬¬x becomes x, and a → b becomes ¬a ∨ b. */
function simplify(formula: Formula): Formula {
  if ('atom' in formula) return formula;
  if ('not' in formula) {
    const inner = simplify(formula.not);
    return 'not' in inner ? inner.not : { not: inner };
  }
  const left = simplify(formula.left);
  const right = simplify(formula.right);
  if (formula.operator === IMPLIES) return simplify({ operator: OR, left: { not: left }, right });
  return { operator: formula.operator, left, right };
}

function complexity(formula: Formula): number {
  if ('atom' in formula) return 1;
  if ('not' in formula) return 1 + complexity(formula.not);
  return 1 + complexity(formula.left) + complexity(formula.right);
}

function randomFormula(random: SeededRandom, variables: string[], depth: number): Formula {
  if (depth <= 1) return { atom: random.choice(variables) };
  const operator = random.choice([AND, OR, NOT, IMPLIES, IFF] as const);
  if (operator === NOT) return { not: randomFormula(random, variables, depth - 1) };
  return { operator, left: randomFormula(random, variables, depth - 1), right: randomFormula(random, variables, depth - 1) };
}

const CONTRADICTION: Formula = { operator: AND, left: { atom: 'P' }, right: { not: { atom: 'P' } } };

/**
 * Premises as upstream draws them, and a conclusion found as upstream searches for one (simplified random
 * depth-2 formulas that follow and are not trivial). Unlike upstream, whose fallback is the first variable
 * whether or not it follows, ngym falls back to a non-trivial premise and redraws premises that are
 * contradictory or admit no non-trivial conclusion, so every item's example answer scores 1.0.
 */
function premisesWithConclusion(random: SeededRandom, variables: string[], config: { min_statements: number; max_statements: number; max_complexity: number }) {
  for (let draw = 0; draw < 1000; draw++) {
    const premises = Array.from({ length: random.int(config.min_statements, config.max_statements) }, () =>
      randomFormula(random, variables, random.int(1, config.max_complexity)),
    );
    if (follows(premises, CONTRADICTION)) continue;
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = simplify(randomFormula(random, variables, 2));
      if (follows(premises, candidate) && !isTrivial(candidate)) return { premises, conclusion: candidate };
    }
    const premise = premises.find((formula) => !isTrivial(formula));
    if (premise !== undefined) return { premises, conclusion: premise };
  }
  throw new Error(`no premises with a non-trivial conclusion in 1000 draws; widen the config (${JSON.stringify(config)})`);
}

function scorePropositionalLogic(answer: string | null, entry: TaskEntry): number {
  if (!answer) return 0;
  const variables = entry.metadata.variables;
  const premises = entry.metadata.premises;
  if (variables === undefined || premises === undefined) return 0;
  if (!Array.isArray(variables) || !Array.isArray(premises)) throw new TypeError('metadata.variables and metadata.premises must be lists');
  const valid = new Set(variables);
  if ((answer.match(/[A-Z]/g) ?? []).some((letter) => !valid.has(letter))) return 0;
  let premiseFormulas: Formula[];
  let conclusion: Formula;
  try {
    premiseFormulas = premises.map((premise) => parseFormula(String(premise)));
    conclusion = parseFormula(answer);
  } catch (error) {
    if (error instanceof ParseError) return 0;
    throw error;
  }
  if (!follows(premiseFormulas, conclusion)) return 0.05;
  return isTrivial(conclusion) ? 0.25 : 1;
}

const PropositionalLogicConfig = z.strictObject({
  min_vars: z.number().int().min(1).max(11).default(2),
  max_vars: z.number().int().min(1).max(11).default(4),
  min_statements: z.number().int().min(1).default(2),
  max_statements: z.number().int().min(1).default(4),
  /** Deepest operator nesting of a premise. */
  max_complexity: z.number().int().min(1).max(8).default(3),
});

export const propositionalLogic = defineTask({
  name: 'propositional_logic',
  category: 'logic',
  description: 'State a conclusion that follows from propositional premises.',
  config: PropositionalLogicConfig,
  validate: (config) =>
    config.min_vars > config.max_vars ? 'max_vars must be >= min_vars' : config.min_statements > config.max_statements ? 'max_statements must be >= min_statements' : undefined,
  difficulty: (config) => ({ vars: [config.min_vars, config.max_vars], statements: [config.min_statements, config.max_statements], complexity: config.max_complexity }),
  generate: (random, config) => {
    const variables = Array.from({ length: random.int(config.min_vars, config.max_vars) }, (_, index) => String.fromCharCode(0x50 + index));
    const { premises, conclusion } = premisesWithConclusion(random, variables, config);
    const premiseTexts = premises.map(formulaText);
    const question = `${QUESTION}Given:\n${premiseTexts.map((premise, index) => `${index + 1}. ${premise}\n.`).join('')}What can we conclude from the above statements?`;
    return {
      question,
      answer: null,
      metadata: { premises: premiseTexts, variables, complexity: complexity(conclusion), example_answer: formulaText(conclusion) },
    };
  },
  score: scorePropositionalLogic,
});
