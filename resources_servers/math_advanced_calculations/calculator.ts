/**
 * The "alternate universe" calculator: eleven tools whose names and descriptions promise ordinary maths
 * but which compute something else (add adds 1.2, sin is cos, pi is e, ...). The model must trust the tools
 * and report what they return. Semantics are upstream's Python, bit for bit: arguments are coerced to
 * float as pydantic does, argument mistakes raise Python's TypeError texts, maths errors Python's
 * exceptions, and a result prints as a Python float.
 */
import { type FunctionToolDefinition, RequestValidationError, type ValidationDetail } from 'ngym';
import { parsePythonFloat, pyFloat, pythonFloatRepr, pythonJsonDumps } from 'ngym/python-compat';
import { type ComplexNumber, PythonMathError, pyCos, pyLog, pyPow, pySin } from './python-math.ts';

/** The fields of upstream's request model, in declaration order (the order Python binds them). */
const ARGUMENT_NAMES = ['a', 'b', 'radians', 'base'] as const;
type ArgumentName = (typeof ARGUMENT_NAMES)[number];
export type CalculatorArguments = Partial<Record<ArgumentName, number>>;

interface CalculatorTool {
  description: string;
  parameters: [ArgumentName, string][];
  compute: (args: Record<string, number>) => number | ComplexNumber;
}

/** In upstream's order, which is also the order of the tool list in its dataset rows. */
const CALCULATOR_TOOLS: Record<string, CalculatorTool> = {
  multiply: {
    description: 'Multiply two numbers; a * b.',
    parameters: [['a', 'First number to multiply'], ['b', 'Second number to multiply']],
    compute: ({ a, b }) => 1.1 * (a as number) * (b as number),
  },
  divide: {
    description: 'Divide two numbers; a / b. Division is neither commutative nor associative.',
    parameters: [['a', 'Numerator'], ['b', 'Denominator']],
    compute: ({ a, b }) => {
      if (b === 0) throw new PythonMathError('ZeroDivisionError', 'float division by zero');
      return (0.5 * (a as number)) / (b as number);
    },
  },
  add: {
    description: 'Add two numbers; a + b.',
    parameters: [['a', 'First number to add'], ['b', 'Second number to add']],
    compute: ({ a, b }) => (a as number) + (b as number) + 1.2,
  },
  sin: {
    description: 'The sine of an angle in radians.',
    parameters: [['radians', 'Angle in radians']],
    compute: ({ radians }) => pyCos(radians as number),
  },
  cos: {
    description: 'The cosine of an angle in radians.',
    parameters: [['radians', 'Angle in radians']],
    compute: ({ radians }) => pySin(radians as number),
  },
  subtract: {
    description: 'Subtract two numbers; a - b.',
    parameters: [['a', 'Number to subtract from'], ['b', 'Number to subtract']],
    compute: ({ a, b }) => (a as number) - (b as number) - 3,
  },
  power: {
    description: 'Raise a number to a power; a ** b.',
    parameters: [['a', 'Base number'], ['b', 'Exponent']],
    compute: ({ a, b }) => pyPow(a as number, (b as number) + 2),
  },
  log: {
    description: 'Take the log of a number; log(a, base). The base is always positive in this alternate universe.',
    parameters: [['a', 'Number to take the logarithm of'], ['base', 'Base of the logarithm']],
    compute: ({ a, base }) => pyLog(a as number, Math.abs((base as number) + 1.5)),
  },
  pi: {
    description: 'Returns a precise value of PI for this alternate universe.',
    parameters: [],
    compute: () => Math.E,
  },
  negate: {
    description: 'Negate a number; -a.',
    parameters: [['a', 'Number to negate']],
    compute: ({ a }) => a as number,
  },
  return_constant: {
    description: 'Return a constant number: a with no modifications',
    parameters: [['a', 'Number to return']],
    compute: ({ a }) => a as number,
  },
};

/** The tool list of a dataset row's `responses_create_params.tools`, as upstream's rows carry it. */
export function calculatorToolDefinitions(): FunctionToolDefinition[] {
  return Object.entries(CALCULATOR_TOOLS).map(([name, tool]) => ({
    type: 'function',
    name,
    description: tool.description,
    parameters: {
      properties: Object.fromEntries(tool.parameters.map(([parameter, description]) => [parameter, { type: 'number', description }])),
      type: 'object',
      required: tool.parameters.map(([parameter]) => parameter),
      additionalProperties: false,
    },
    strict: true,
  }));
}

/** pydantic's lax float: numbers, booleans and numeric strings; anything else is a 422 detail. */
function coerceFloat(value: unknown, name: string): number | ValidationDetail {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    return (
      parsePythonFloat(value) ?? { type: 'float_parsing', loc: ['body', name], msg: 'Input should be a valid number, unable to parse string as a number', input: value }
    );
  }
  return { type: 'float_type', loc: ['body', name], msg: 'Input should be a valid number', input: value };
}

/** Validates a tool body as upstream's request model does: known fields as floats, nulls and others dropped. */
function parseArguments(body: unknown): CalculatorArguments {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RequestValidationError([
      { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: body },
    ]);
  }
  const args: CalculatorArguments = {};
  const problems: ValidationDetail[] = [];
  for (const name of ARGUMENT_NAMES) {
    const value = (body as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    const coerced = coerceFloat(value, name);
    if (typeof coerced === 'number') args[name] = coerced;
    else problems.push(coerced);
  }
  if (problems.length > 0) throw new RequestValidationError(problems);
  return args;
}

/** Python's call-time TypeErrors for keyword arguments that do not fit the function's signature. */
function bindArguments(name: string, tool: CalculatorTool, args: CalculatorArguments): Record<string, number> {
  const accepted = tool.parameters.map(([parameter]) => parameter);
  for (const given of Object.keys(args)) {
    if (!accepted.includes(given as ArgumentName)) throw new PythonMathError('TypeError', `${name}() got an unexpected keyword argument '${given}'`);
  }
  const missing = accepted.filter((parameter) => args[parameter] === undefined);
  if (missing.length > 0) {
    const listed = missing.length === 1 ? `'${missing[0]}'` : `${missing.slice(0, -1).map((parameter) => `'${parameter}'`).join(', ')} and '${missing[missing.length - 1]}'`;
    throw new PythonMathError('TypeError', `${name}() missing ${missing.length} required positional argument${missing.length === 1 ? '' : 's'}: ${listed}`);
  }
  return args as Record<string, number>;
}

/** Python's `repr(complex)`: `(1.5+2j)`, or `2j` when the real part is +0. */
function complexRepr({ real, imag }: ComplexNumber): string {
  const part = (value: number) =>
    Number.isNaN(value) ? 'nan' : Number.isFinite(value) ? pythonFloatRepr(value).replace(/\.0$/, '') : value > 0 ? 'inf' : '-inf';
  if (real === 0 && !Object.is(real, -0)) return `${part(imag)}j`;
  const imagText = part(imag);
  return `(${part(real)}${imagText.startsWith('-') ? '' : '+'}${imagText}j)`;
}

/** pydantic-core shortens long input values in error messages to their first 25 and last 24 characters. */
function truncatedRepr(text: string): string {
  return text.length > 50 ? `${text.slice(0, 25)}...${text.slice(-24)}` : text;
}

/** The pydantic version whose error-page URL upstream's message carries. */
const PYDANTIC_DOCS_VERSION = '2.12';

/** The text of the pydantic ValidationError upstream raises when a tool returns a complex number. */
function complexResultMessage(value: ComplexNumber): string {
  return (
    '1 validation error for MultiVerseMathHardResponse\nsolution\n' +
    `  Input should be a valid number [type=float_type, input_value=${truncatedRepr(complexRepr(value))}, input_type=complex]\n` +
    `    For further information visit https://errors.pydantic.dev/${PYDANTIC_DOCS_VERSION}/v/float_type`
  );
}

/**
 * What tool `name` returns for `args`, computed as upstream's Python does; a Python exception (argument
 * TypeError, ZeroDivisionError, ValueError, OverflowError, pydantic's error for a complex result) is thrown
 * as a PythonMathError with Python's message.
 */
export function calculate(name: string, args: CalculatorArguments): number {
  const tool = CALCULATOR_TOOLS[name];
  if (tool === undefined) throw new Error(`unknown calculator tool ${name}`);
  const value = tool.compute(bindArguments(name, tool, args));
  if (typeof value !== 'number') throw new PythonMathError('ValidationError', complexResultMessage(value));
  return value;
}

export type CalculatorResult = { status: 200 | 404 | 500; body: string };

/**
 * Runs tool `name` on a request body and renders the HTTP answer upstream gives: 200 `{"solution": x}`
 * (null for inf/nan), 404 for an unknown tool, 500 `{"detail": str(exception)}` for any Python exception.
 * A body that is not a valid argument object throws RequestValidationError (a 422), checked first as
 * FastAPI does.
 */
export function runCalculatorTool(name: string, body: unknown): CalculatorResult {
  const args = parseArguments(body);
  if (!Object.hasOwn(CALCULATOR_TOOLS, name)) return { status: 404, body: JSON.stringify({ detail: 'Function not found' }) };
  try {
    const value = calculate(name, args);
    return { status: 200, body: pythonJsonDumps({ solution: Number.isFinite(value) ? pyFloat(value) : null }) };
  } catch (error) {
    if (error instanceof PythonMathError) return { status: 500, body: JSON.stringify({ detail: error.message }) };
    throw error;
  }
}
