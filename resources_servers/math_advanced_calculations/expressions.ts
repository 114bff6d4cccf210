/**
 * The task prompts of this environment ("Get me the values for (9.0 - 9.0), sin(5.0), and pi using only
 * the given tools.") hold arithmetic in Python syntax. Each operator stands for a calculator tool (+ add,
 * - subtract, * multiply, / divide, ** power, unary - negate, pi(), sin, cos, log(a, base)), so a task's
 * ground truth is what the tools return when applied as the expression says. This module parses prompts
 * and evaluates them through the tools, recording the calls an ideal model would make.
 */
import { calculate, type CalculatorArguments } from './calculator.ts';

export type Expression =
  | { kind: 'number'; value: number }
  | { kind: 'call'; tool: string; args: [string, Expression][] };

export interface ToolCall {
  name: string;
  args: CalculatorArguments;
  result: number;
}

const BINARY_TOOLS: Record<string, string> = { '+': 'add', '-': 'subtract', '*': 'multiply', '/': 'divide', '**': 'power' };

function tokenize(text: string): string[] {
  const tokens = text.match(/\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[A-Za-z_]+|\*\*|[-+*/(),]|\S/g) ?? [];
  const stray = tokens.find((token) => !/^(?:\d|[A-Za-z_]|\*\*$|[-+*/(),]$)/.test(token));
  if (stray !== undefined) throw new SyntaxError(`unexpected character '${stray}' in expression: ${text}`);
  return tokens;
}

class Parser {
  private position = 0;

  constructor(
    private readonly tokens: string[],
    private readonly source: string,
  ) {}

  parse(): Expression {
    const expression = this.sum();
    if (this.position < this.tokens.length) this.fail(`unexpected '${this.tokens[this.position]}'`);
    return expression;
  }

  private fail(message: string): never {
    throw new SyntaxError(`${message} in expression: ${this.source}`);
  }

  private peek(): string | undefined {
    return this.tokens[this.position];
  }

  private take(expected?: string): string {
    const token = this.tokens[this.position];
    if (token === undefined || (expected !== undefined && token !== expected)) this.fail(`expected ${expected ?? 'more input'}`);
    this.position++;
    return token;
  }

  private binary(operator: string, left: Expression, right: Expression): Expression {
    const tool = BINARY_TOOLS[operator] as string;
    return { kind: 'call', tool, args: [['a', left], ['b', right]] };
  }

  private sum(): Expression {
    let left = this.product();
    while (this.peek() === '+' || this.peek() === '-') left = this.binary(this.take(), left, this.product());
    return left;
  }

  private product(): Expression {
    let left = this.unary();
    while (this.peek() === '*' || this.peek() === '/') left = this.binary(this.take(), left, this.unary());
    return left;
  }

  /** Python: `-x ** y` is `-(x ** y)`, and `x ** -y` is allowed. */
  private unary(): Expression {
    if (this.peek() === '-') {
      this.take();
      return { kind: 'call', tool: 'negate', args: [['a', this.unary()]] };
    }
    const base = this.primary();
    if (this.peek() === '**') {
      this.take();
      return this.binary('**', base, this.unary());
    }
    return base;
  }

  private primary(): Expression {
    const token = this.take();
    if (/^\d/.test(token)) return { kind: 'number', value: Number(token) };
    if (token === '(') {
      const inner = this.sum();
      this.take(')');
      return inner;
    }
    if (token === 'pi') return { kind: 'call', tool: 'pi', args: [] };
    if (token === 'sin' || token === 'cos') {
      this.take('(');
      const radians = this.sum();
      this.take(')');
      return { kind: 'call', tool: token, args: [['radians', radians]] };
    }
    if (token === 'log') {
      this.take('(');
      const a = this.sum();
      this.take(',');
      const base = this.sum();
      this.take(')');
      return { kind: 'call', tool: 'log', args: [['a', a], ['base', base]] };
    }
    return this.fail(`unexpected '${token}'`);
  }
}

export function parseExpression(text: string): Expression {
  return new Parser(tokenize(text), text).parse();
}

/** The value of `expression` through the tools; `calls` collects each tool call in evaluation order. */
function evaluate(expression: Expression, calls: ToolCall[] = []): number {
  if (expression.kind === 'number') return expression.value;
  const args: CalculatorArguments = {};
  for (const [name, argument] of expression.args) args[name as keyof CalculatorArguments] = evaluate(argument, calls);
  const result = calculate(expression.tool, args);
  calls.push({ name: expression.tool, args, result });
  return result;
}

/** Splits "A, B, and C" (or "A and B") at top-level separators. */
function splitList(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      items.push(text.slice(start, index));
      start = index + 1;
    }
  }
  items.push(text.slice(start));
  const trimmed = items.map((item) => item.trim().replace(/^and\s+/, ''));
  if (trimmed.length === 1) {
    const pair = /^(.*\S)\s+and\s+(\S.*)$/.exec(trimmed[0] as string);
    if (pair !== null) return [pair[1] as string, pair[2] as string];
  }
  return trimmed;
}

const PROMPT = /^Get me the values? for (.+) using only the given tools\.$/s;

/** The expressions a task prompt asks for; a standalone number is asked through `return_constant`. */
function promptExpressions(prompt: string): Expression[] {
  const match = PROMPT.exec(prompt.trim());
  if (match === null) throw new SyntaxError(`not a math_advanced_calculations prompt: ${prompt}`);
  return splitList(match[1] as string).map((item) => {
    const expression = parseExpression(item);
    return expression.kind === 'number' ? { kind: 'call', tool: 'return_constant', args: [['a', expression]] } : expression;
  });
}

/** The ground truth of a prompt: each asked value, as the tools compute it. */
export function groundTruth(prompt: string, calls: ToolCall[] = []): number[] {
  return promptExpressions(prompt).map((expression) => evaluate(expression, calls));
}
