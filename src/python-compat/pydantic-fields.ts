/**
 * Row fields as upstream 0.7.0's pydantic request models accept them, so a row either side would refuse is refused
 * here too (422) and one they accept is accepted: `uuid: str | int`, `task_id: int` (pydantic's lax mode also
 * takes a bool, and an integer written as a string), and a rubric item's `weight: float` (a bool, or a number
 * written as a string as Python's float() reads it, `inf` and `nan` included, but with ASCII digits only), as
 * multichallenge's and inverse_if's rows are read.
 */
import { pythonStrip } from './python-str.ts';
import { parsePythonFloat } from './python-values.ts';
import * as z from 'zod';

const INTEGER_TEXT = /^[+-]?\d+(?:_\d+)*(?:\.0+)?$/;
const ASCII = /^[\x00-\x7f]*$/;

/** `Optional[str | int]`. */
export const PydanticId = z.union([z.string(), z.int(), z.boolean()]).nullish();

/** `Optional[int]`. */
export const PydanticInt = z.union([z.int(), z.boolean(), z.string().refine((text) => INTEGER_TEXT.test(pythonStrip(text)), 'Input should be a valid integer, unable to parse string as an integer')]).nullish();

/**
 * The number pydantic makes of a `float` field's value, or undefined when it refuses it. `inf` and `nan` (as
 * strings) are numbers to it: upstream writes them back as null, as JSON.stringify does.
 */
export function pydanticFloat(value: unknown): number | undefined {
  if (typeof value === 'boolean') return Number(value);
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const text = pythonStrip(value);
  return ASCII.test(text) ? parsePythonFloat(text) : undefined;
}

export const PydanticFloat = z.unknown().refine((value) => pydanticFloat(value) !== undefined, 'Input should be a valid number, unable to parse string as a number');
