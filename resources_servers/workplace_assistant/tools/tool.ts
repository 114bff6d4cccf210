/**
 * An office tool: upstream's function schema (what the model sees) plus its implementation with Python's
 * calling convention, `function(**kwargs)`: parameters have defaults (None unless stated), an unknown
 * keyword is Python's TypeError, and the implementation returns a Python value (str, dict, list...).
 */
import { type FunctionToolDefinition } from 'ngym';
import { PythonError, type PythonValue } from 'ngym/python-compat';
import type { Office } from '../database/office.ts';

interface ParameterSpec {
  type: 'string' | 'integer';
  description: string;
  /** The Python default; None when absent. */
  default?: PythonValue;
}

export type ToolArguments = Record<string, PythonValue>;

/** The arguments of a tool with parameters `P`, every one present. */
export type Arguments<P extends string> = Record<P, PythonValue>;

/** A tool whose parameters are named `P`: `run` sees every one of them (defaults filled in by `callOfficeTool`). */
export interface OfficeTool<P extends string = string> {
  name: string;
  /** `Class.method`, as Python names it in a TypeError. */
  pythonMethod: string;
  description: string;
  /** In upstream's order (the schema's property order and the signature's). */
  parameters: Record<P, ParameterSpec>;
  required: readonly NoInfer<P>[];
  run(args: Record<P, PythonValue>, office: Office): PythonValue;
}

/** Declares a tool, inferring its parameter names so `run` reads its arguments without casts. */
export function officeTool<P extends string>(tool: OfficeTool<P>): OfficeTool {
  return tool;
}

/** `function(**kwargs)`: fills defaults, rejects unknown keywords as Python does, runs the tool. */
export function callOfficeTool(tool: OfficeTool, kwargs: ToolArguments, office: Office): PythonValue {
  for (const key of Object.keys(kwargs)) {
    if (!Object.hasOwn(tool.parameters, key)) throw new PythonError('TypeError', `${tool.pythonMethod}() got an unexpected keyword argument '${key}'`);
  }
  const args: ToolArguments = {};
  for (const [name, spec] of Object.entries(tool.parameters)) args[name] = Object.hasOwn(kwargs, name) ? (kwargs[name] as PythonValue) : (spec.default ?? null);
  return tool.run(args, office);
}

/** The function-tool schema as upstream lists it in a dataset row (`strict: false`). */
export function toolDefinition(tool: OfficeTool): FunctionToolDefinition {
  const properties: Record<string, { type: string; description: string }> = {};
  for (const [name, spec] of Object.entries(tool.parameters)) properties[name] = { type: spec.type, description: spec.description };
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: { type: 'object', properties, required: [...tool.required], additionalProperties: false },
    strict: false,
  };
}

/** Runs `body`; a Python exception becomes the message upstream's `except Exception as e` returns. */
export function returningErrors(prefix: string, body: () => PythonValue): PythonValue {
  try {
    return body();
  } catch (error) {
    if (error instanceof PythonError) return `${prefix}: ${error.message}`;
    throw error;
  }
}
