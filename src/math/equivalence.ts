/**
 * Deciding whether two parsed answers are the same, in the order Math-Verify's `sympy_expr_eq` uses:
 * equations are unwrapped to follow the gold answer's form (`x = 5` matches `5`), then structural
 * identity, relations, sets/tuples/intervals (elementwise), symbols (`e` is Euler's number, `abc` is the
 * word), and finally numbers and expressions: 6-decimal rounding when either side is a decimal literal,
 * relative difference <= 1e-15 at high precision, exact `isEqual`, and for free variables agreement on
 * seeded random samples (our stand-in for sympy's `simplify(a - b) == 0`).
 */
import { type ComputeEngine, type Expression, isFunction, isNumber, isString, isSymbol } from '@cortex-js/compute-engine';

export interface EquivalenceOptions {
  /** Decimal places floats are rounded to before comparing (Math-Verify: 6). */
  floatRounding: number;
  /** Relative difference tolerated between exact numbers (Math-Verify: 1e-15). */
  relativeTolerance: number;
  /** Random points at which expressions with free variables must agree. */
  samples: number;
}

export const DEFAULT_EQUIVALENCE: EquivalenceOptions = { floatRounding: 6, relativeTolerance: 1e-15, samples: 6 };

const RELATIONS = new Set(['Equal', 'NotEqual', 'Less', 'LessEqual', 'Greater', 'GreaterEqual']);
const FLIPPED: Record<string, string> = { Less: 'Greater', Greater: 'Less', LessEqual: 'GreaterEqual', GreaterEqual: 'LessEqual', Equal: 'Equal', NotEqual: 'NotEqual' };
const SET_LIKE = new Set(['Set', 'Tuple', 'List', 'Sequence', 'Delimiter', 'Pair', 'Triple', 'Interval', 'Union']);

const operatorOf = (expression: Expression): string => expression.operator;
const opsOf = (expression: Expression): readonly Expression[] => (isFunction(expression) ? expression.ops : []);
const symbolOf = (expression: Expression): string | undefined => (isSymbol(expression) ? expression.symbol : undefined);
const stringOf = (expression: Expression): string | undefined => (isString(expression) ? expression.string : undefined);
const isRelation = (expression: Expression) => RELATIONS.has(operatorOf(expression)) && opsOf(expression).length === 2;
const isEquation = (expression: Expression) => operatorOf(expression) === 'Equal' && opsOf(expression).length === 2;
const isSymbolic = (expression: Expression) => symbolOf(expression) !== undefined;
/** `x = ...` or `abc = ...`: the left side names something. */
const isAssignment = (expression: Expression) => isEquation(expression) && onlySymbols(opsOf(expression)[0] as Expression);

function onlySymbols(expression: Expression): boolean {
  if (isSymbolic(expression)) return true;
  if (operatorOf(expression) === 'Multiply') return opsOf(expression).every(onlySymbols);
  return false;
}

function lhs(expression: Expression): Expression {
  return opsOf(expression)[0] as Expression;
}

function rhs(expression: Expression): Expression {
  return opsOf(expression)[1] as Expression;
}

/** A decimal literal (`0.5`), as opposed to an exact integer or rational. */
function isFloatLiteral(expression: Expression): boolean {
  if (!isNumber(expression)) return false;
  const json = expression.json;
  if (typeof json === 'number') return !Number.isInteger(json);
  if (typeof json === 'object' && json !== null && 'num' in json) return /[.eE]/.test(String((json as { num: string }).num));
  return false;
}

function roundTo(value: number, places: number): number {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
}

/** A tiny seeded generator, so sampling gives the same verdict on every run and machine. */
function sampler(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

export class Equivalence {
  constructor(
    private readonly ce: ComputeEngine,
    private readonly options: EquivalenceOptions = DEFAULT_EQUIVALENCE,
  ) {}

  equal(goldInput: Expression, predInput: Expression): boolean {
    let gold = goldInput;
    let pred = predInput;
    // Follow the gold answer's form: "x = 5" vs "5" compares 5 and 5, but "x = 5" vs "y = 5" differs.
    if (isEquation(pred) && !isEquation(gold)) pred = rhs(pred);
    else if (isAssignment(gold) && !isEquation(pred)) gold = rhs(gold);

    if (gold.isSame(pred)) return true;
    if (isRelation(gold) && isRelation(pred)) return this.relationsEqual(gold, pred);
    if (SET_LIKE.has(operatorOf(gold)) || SET_LIKE.has(operatorOf(pred))) return this.collectionsEqual(gold, pred);
    if (stringOf(gold) !== undefined || stringOf(pred) !== undefined) return this.textEqual(gold, pred);
    if (isSymbolic(gold) || isSymbolic(pred)) {
      if (this.symbolsEqual(gold, pred)) return true;
    }
    return this.valuesEqual(gold, pred);
  }

  private textEqual(gold: Expression, pred: Expression): boolean {
    const text = (expression: Expression) => (stringOf(expression) ?? symbolOf(expression) ?? JSON.stringify(expression.json)).replace(/\s+/g, '').toLowerCase();
    return text(gold) !== '' && text(gold) === text(pred);
  }

  /** `e` read as a variable vs Euler's number, and `abc` read as a product of letters. */
  private symbolsEqual(gold: Expression, pred: Expression): boolean {
    const word = (expression: Expression): string | undefined => {
      const symbol = symbolOf(expression);
      if (symbol === 'ExponentialE') return 'e';
      if (symbol !== undefined) return symbol;
      const ops = opsOf(expression);
      if (operatorOf(expression) === 'Multiply' && ops.every(isSymbolic)) return ops.map((op) => word(op)).join('');
      return undefined;
    };
    const goldWord = word(gold);
    const predWord = word(pred);
    if (goldWord === undefined || predWord === undefined) return false;
    const fold = (name: string) => (name.length > 1 ? name.toLowerCase() : name);
    return fold(goldWord) === fold(predWord);
  }

  private relationsEqual(gold: Expression, pred: Expression): boolean {
    const goldDifference = this.ce.box(['Subtract', lhs(gold).json, rhs(gold).json]);
    const predDifference = this.ce.box(['Subtract', lhs(pred).json, rhs(pred).json]);
    const op = operatorOf(gold);
    if (op === operatorOf(pred) && this.valuesEqual(goldDifference, predDifference)) return true;
    if (FLIPPED[op] === operatorOf(pred) && this.valuesEqual(goldDifference, this.ce.box(['Negate', predDifference.json]))) return true;
    // Equations with the same solutions: one side is a constant multiple of the other (2x = 4 vs x = 2).
    if ((op === 'Equal' || op === 'NotEqual') && op === operatorOf(pred)) return this.proportional(goldDifference, predDifference);
    return false;
  }

  private proportional(left: Expression, right: Expression): boolean {
    const ratio = this.ce.box(['Divide', left.json, right.json]);
    const values = this.samplePoints([ratio]);
    if (values === undefined) return false;
    const first = values[0]?.[0];
    return first !== undefined && first !== 0 && values.every(([value]) => value !== undefined && Math.abs(value - first) <= 1e-9 * Math.abs(first));
  }

  private elements(expression: Expression): Expression[] {
    return [...opsOf(expression)];
  }

  /** `[a, b]` is the closed interval, as in latex2sympy (a list of any other length stays a list). */
  private closedInterval(expression: Expression): Expression {
    const ops = opsOf(expression);
    return operatorOf(expression) === 'List' && ops.length === 2 ? this.ce.box(['Interval', ...ops.map((op) => op.json)], { form: 'raw' }) : expression;
  }

  private collectionsEqual(goldInput: Expression, predInput: Expression): boolean {
    const gold = this.closedInterval(goldInput);
    const pred = this.closedInterval(predInput);
    const goldOp = operatorOf(gold);
    const predOp = operatorOf(pred);
    if (goldOp === 'Interval' && predOp === 'Interval') return this.intervalsEqual(gold, pred);
    // A union is a set: its parts in any order (sympy sorts them).
    if (goldOp === 'Union' && predOp === 'Union') return this.unorderedEqual(this.elements(gold), this.elements(pred));
    // "(1, 2)" may mean an open interval or a pair: compare the endpoints as a pair.
    const asPair = (interval: Expression) => {
      const [low, high] = this.elements(interval);
      if (low === undefined || high === undefined || operatorOf(low) !== 'Open' || operatorOf(high) !== 'Open') return undefined;
      return [opsOf(low)[0] as Expression, opsOf(high)[0] as Expression];
    };
    if (goldOp === 'Interval' || predOp === 'Interval') {
      const goldItems = goldOp === 'Interval' ? asPair(gold) : this.elements(gold);
      const predItems = predOp === 'Interval' ? asPair(pred) : this.elements(pred);
      return goldItems !== undefined && predItems !== undefined && goldOp !== predOp && this.sequencesEqual(goldItems, predItems);
    }
    const goldItems = SET_LIKE.has(goldOp) ? this.elements(gold) : [gold];
    const predItems = SET_LIKE.has(predOp) ? this.elements(pred) : [pred];
    if (goldItems.length !== predItems.length) return false;
    // The gold answer decides: a set (or a single value) is unordered, a tuple or list is ordered, and a
    // predicted set is then read in the order it was written.
    const unordered = goldOp === 'Set' || !SET_LIKE.has(goldOp);
    return unordered ? this.unorderedEqual(goldItems, predItems) : this.sequencesEqual(goldItems, predItems);
  }

  private intervalsEqual(gold: Expression, pred: Expression): boolean {
    const [goldLow, goldHigh] = this.elements(gold);
    const [predLow, predHigh] = this.elements(pred);
    if (goldLow === undefined || goldHigh === undefined || predLow === undefined || predHigh === undefined) return false;
    const open = (bound: Expression) => operatorOf(bound) === 'Open';
    const value = (bound: Expression) => (open(bound) ? (opsOf(bound)[0] as Expression) : bound);
    return (
      open(goldLow) === open(predLow) &&
      open(goldHigh) === open(predHigh) &&
      this.equal(value(goldLow), value(predLow)) &&
      this.equal(value(goldHigh), value(predHigh))
    );
  }

  private sequencesEqual(gold: readonly Expression[], pred: readonly Expression[]): boolean {
    return gold.length === pred.length && gold.every((item, index) => this.equal(item, pred[index] as Expression));
  }

  /** Each gold element matched to a distinct predicted one. */
  private unorderedEqual(gold: readonly Expression[], pred: readonly Expression[]): boolean {
    if (gold.length !== pred.length) return false;
    const used = new Set<number>();
    return gold.every((item) => {
      const index = pred.findIndex((candidate, position) => !used.has(position) && this.equal(item, candidate));
      if (index === -1) return false;
      used.add(index);
      return true;
    });
  }

  private valuesEqual(gold: Expression, pred: Expression): boolean {
    const unknowns = new Set([...gold.unknowns, ...pred.unknowns]);
    if (unknowns.size === 0) {
      const goldValue = gold.N();
      const predValue = pred.N();
      if (isFloatLiteral(gold) || isFloatLiteral(pred)) {
        const places = this.options.floatRounding;
        if (Number.isFinite(goldValue.re) && roundTo(goldValue.re, places) === roundTo(predValue.re, places) && goldValue.im === predValue.im) return true;
      }
      if (this.relativelyClose(goldValue, predValue)) return true;
      // Two finite numbers that differ numerically are different: the exact check would only cost time.
      if (isNumber(goldValue) && isNumber(predValue) && Number.isFinite(goldValue.re) && Number.isFinite(predValue.re)) return false;
    }
    if (gold.isEqual(pred) === true) return true;
    return unknowns.size > 0 && this.agreeOnSamples(gold, pred);
  }

  /** |a - b| / |a| <= tolerance, computed at the engine's precision (huge and tiny values included). */
  private relativelyClose(gold: Expression, pred: Expression): boolean {
    if (!isNumber(gold) || !isNumber(pred)) return false;
    if (gold.isSame(pred)) return true;
    if (!Number.isFinite(gold.re) && gold.re === pred.re && gold.im === pred.im) return true;
    const ratio = this.ce.box(['Abs', ['Divide', ['Subtract', gold.json, pred.json], gold.json]]).N();
    const value = ratio.re;
    return Number.isFinite(value) && value <= this.options.relativeTolerance;
  }

  private samplePoints(expressions: Expression[]): (number | undefined)[][] | undefined {
    const unknowns = [...new Set(expressions.flatMap((expression) => [...expression.unknowns]))];
    if (unknowns.length === 0) return undefined;
    const random = sampler(0x5eed + unknowns.length);
    const rows: (number | undefined)[][] = [];
    for (let sample = 0; sample < this.options.samples; sample++) {
      const substitution = Object.fromEntries(unknowns.map((name) => [name, this.ce.number(Math.round((random() * 4 - 2 + (random() < 0.5 ? -0.37 : 0.41)) * 1e6) / 1e6)]));
      rows.push(
        expressions.map((expression) => {
          const value = expression.subs(substitution).N();
          return isNumber(value) && value.im === 0 && Number.isFinite(value.re) ? value.re : undefined;
        }),
      );
    }
    return rows;
  }

  /** Both sides agree (relative 1e-9) at every sample point where both are real and finite, and at most points. */
  private agreeOnSamples(gold: Expression, pred: Expression): boolean {
    const rows = this.samplePoints([gold, pred]);
    if (rows === undefined) return false;
    let compared = 0;
    for (const [goldValue, predValue] of rows) {
      if (goldValue === undefined || predValue === undefined) {
        if ((goldValue === undefined) !== (predValue === undefined)) return false;
        continue;
      }
      compared++;
      if (Math.abs(goldValue - predValue) > 1e-9 * Math.max(1, Math.abs(goldValue))) return false;
    }
    return compared >= Math.ceil(rows.length / 2);
  }
}
