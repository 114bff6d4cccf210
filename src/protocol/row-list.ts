/**
 * The lists a row gives in `metadata` (a rubric, multichallenge's messages), which upstream 0.7.0 reads without
 * validating them: it iterates whatever is there, so an empty string or dict is a list without items (and a reward
 * of 0.0), while anything else that is not a list of objects fails its verify with 500. Here that is a 422 naming
 * the field. Used by multichallenge and inverse_if.
 */
import { isPythonDict } from '../python-compat/python-values.ts';
import { parseReportingInput, RequestValidationError, validationDetails } from './validation.ts';
import * as z from 'zod';

/** `value` as a list of `item`s; `location` is the field's path (`['body', 'metadata', 'rubric']`). */
export function rowList<Item extends z.ZodType>(value: unknown, item: Item, location: (string | number)[]): z.infer<Item>[] {
  if (value === '' || (isPythonDict(value) && Object.keys(value).length === 0)) return [];
  const parsed = parseReportingInput(z.array(item), value);
  if (!parsed.success) throw new RequestValidationError(validationDetails(parsed.error, location));
  // The row's own objects, not zod's copies: verify reads keys the item schema does not name.
  return value as z.infer<Item>[];
}
