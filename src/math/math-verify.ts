/**
 * The library check of math_with_judge: is the model's answer mathematically the expected one? It
 * follows Math-Verify's `math_metric` as upstream calls it: the gold answer is `\boxed{expected}` read as
 * LaTeX; the prediction is searched as an expression, then as LaTeX (see extract.ts); each side yields
 * its parsed value plus the first matched string; the answer is right when any gold item equals any
 * predicted item (values by `Equivalence`, strings by exact text). This runs synchronously and can be
 * slow on hostile input: call it through `MathVerifier` (a worker pool with a time limit).
 */
import { ComputeEngine, type Expression, type ExpressionInput, isFunction } from '@cortex-js/compute-engine';
import { DEFAULT_EQUIVALENCE, Equivalence, type EquivalenceOptions } from './equivalence.ts';
import { answerCandidates, type Candidate, type Target } from './extract.ts';
import { latex2sympyShape } from './latex2sympy-shape.ts';
import { normalizeLatex } from './latex-normalize.ts';
import { inSetOrder, sympyString } from './sympy-str.ts';

export interface MathVerifyResult {
  /** 1 when the answer is equivalent to the expected one, else 0. */
  reward: number;
  /** The predicted answer in sympy's text form (upstream's `extracted_answer`), or null when none was found. */
  extractedAnswer: string | null;
}

/** A parsed answer, or the raw string of a match that did not parse. */
type Item = { kind: 'value'; expression: Expression; display: string; raw: unknown } | { kind: 'text'; text: string };

let engine: ComputeEngine | undefined;
function computeEngine(): ComputeEngine {
  engine ??= new ComputeEngine();
  return engine;
}

/** `a = b = 5` parses badly as a chain: retry with the last side when there are more than two. */
function lastEquation(latex: string): string {
  if (latex.includes(',') || latex.includes(';')) return latex;
  const sides = latex.split(/(?<![\\<!>])=/);
  return sides.length > 2 ? (sides.at(-1) as string) : latex;
}

/** Characters latex2sympy2's grammar has no token for: an answer holding one does not parse upstream. */
const UNREADABLE = /[°√∞·\u00BC-\u00BE\u2150-\u215F]/;

function parseLatex(ce: ComputeEngine, latex: string): Item | undefined {
  if (UNREADABLE.test(latex)) return undefined;
  for (const attempt of new Set([latex, lastEquation(latex)])) {
    if (attempt.trim() === '') continue;
    const expression = ce.parse(attempt);
    if (!expression.isValid || expression.operator === 'Nothing') continue;
    const raw = latex2sympyShape(ce, ce.parse(attempt, { form: 'raw' }).json, attempt);
    // A bare comma list (`3, 2`, no brackets) is a set in latex2sympy2, as the roots of an equation are.
    if (Array.isArray(raw) && raw[0] === 'Delimiter' && raw[2] === "','" && Array.isArray(raw[1]) && raw[1][0] === 'Sequence') {
      const set = ['Set', ...(raw[1].slice(1) as ExpressionInput[])] as const;
      return { kind: 'value', expression: ce.box(set), display: sympyString(set), raw: set };
    }
    return { kind: 'value', expression, display: sympyString(raw), raw };
  }
  return undefined;
}

function percentOf(ce: ComputeEngine, item: Item): Item {
  if (item.kind === 'text') return item;
  return { kind: 'value', expression: ce.box(['Divide', item.expression.json, 100]), display: `${item.display}/100`, raw: ['Divide', item.raw, 100] };
}

/** Parses one candidate: its value (or undefined) and the string Math-Verify keeps as fallback. */
function parseCandidate(ce: ComputeEngine, candidate: Candidate): { item: Item | undefined; fallback: string } {
  if (candidate.kind === 'expr') {
    const source = candidate.number ?? (candidate.expression as string);
    const latex = candidate.number ?? source.replace(/\n/g, ' ').replace(/\*\*/g, '^').replace(/×/g, '\\times ').replace(/÷/g, '\\div ').replace(/\*/g, '\\cdot ');
    const parsed = parseLatex(ce, latex);
    const item = parsed !== undefined && candidate.percent ? percentOf(ce, parsed) : parsed;
    const display = candidate.number !== undefined && item?.kind === 'value' && /\./.test(candidate.number) ? { ...item, display: sympyString(Number(candidate.number)), raw: Number(candidate.number) } : item;
    return { item: display, fallback: source };
  }
  const normalized = candidate.parts.map((part) => normalizeLatex(part.latex, part.boxed));
  const items = candidate.parts.map((part, index) => {
    const parsed = parseLatex(ce, normalized[index] as string);
    return parsed !== undefined && part.percent ? percentOf(ce, parsed) : parsed;
  });
  const fallback = normalized[0] ?? '';
  if (items.length > 1 && items.every((item) => item?.kind === 'value')) {
    // "1, 2 and 3": one set of every element.
    const elements = items.flatMap((item) => {
      const expression = (item as { expression: Expression }).expression;
      return isFunction(expression) && expression.operator === 'Set' ? expression.ops.map((op) => op.json) : [expression.json];
    });
    const expression = ce.box(['Set', ...elements]);
    const values = items as (Item & { kind: 'value' })[];
    const display = `{${inSetOrder(values, (item) => item.raw)
      .map((item) => item.display)
      .join(', ')}}`;
    return { item: { kind: 'value', expression, display, raw: ['Set', ...values.map((item) => item.raw)] }, fallback };
  }
  return { item: items[0], fallback };
}

/** Math-Verify's `parse`: the first candidate that parses, plus the first matched string. */
export function extractAnswers(text: string, targets: readonly Target[], ce: ComputeEngine = computeEngine()): Item[] {
  const values: Item[] = [];
  const fallbacks: string[] = [];
  for (const group of answerCandidates(text, targets)) {
    for (const candidate of group) {
      // A formula that failed to parse may still lend a number (`\boxed{ 30° }` gives 30), as in Math-Verify 0.8;
      // the expression anchors keep `\frac{12}{` from lending its 12.
      const { item, fallback } = parseCandidate(ce, candidate);
      if (fallback !== '') fallbacks.push(fallback);
      if (item !== undefined) {
        values.push(item);
        break;
      }
    }
    if (values.length > 0) break;
  }
  const first = fallbacks[0];
  if (first !== undefined) values.push({ kind: 'text', text: first });
  return values;
}

function itemsEqual(equivalence: Equivalence, gold: Item, pred: Item): boolean {
  if (gold.kind === 'value' && pred.kind === 'value') {
    try {
      return equivalence.equal(gold.expression, pred.expression);
    } catch {
      return false;
    }
  }
  if (gold.kind === 'text' && pred.kind === 'text') {
    const goldText = gold.text.trim();
    return goldText !== '' && goldText === pred.text.trim();
  }
  return false;
}

/** The library check of one answer: reward and extracted answer, as upstream's `_verify_answer_with_library`. */
export function verifyMathAnswer(expectedAnswer: string, generated: string, options: EquivalenceOptions = DEFAULT_EQUIVALENCE): MathVerifyResult {
  const ce = computeEngine();
  try {
    const golds = extractAnswers(`\\boxed{${expectedAnswer}}`, ['latex'], ce);
    if (golds.length === 0) return { reward: 0, extractedAnswer: null };
    const preds = extractAnswers(generated, ['expr', 'latex'], ce);
    if (preds.length === 0) return { reward: 0, extractedAnswer: null };
    const equivalence = new Equivalence(ce, options);
    const matching = preds.find((pred) => golds.some((gold) => itemsEqual(equivalence, gold, pred)));
    const shown = matching ?? (preds[0] as Item);
    return { reward: matching === undefined ? 0 : 1, extractedAnswer: shown.kind === 'value' ? shown.display : shown.text };
  } catch {
    return { reward: 0, extractedAnswer: null };
  }
}
