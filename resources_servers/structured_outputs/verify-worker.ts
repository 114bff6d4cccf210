/**
 * Worker-thread entry: compiling a schema takes tens of milliseconds, so checks run here, off the event loop.
 * Each thread keeps its own LRU of compiled validators.
 */
import { type Answer, type SchemaCheck, SchemaValidator } from './schema-validation.ts';

export interface SchemaTask {
  schemaText: string;
  answer: Answer;
  cacheSize: number;
}

let validator: SchemaValidator | undefined;

export default function checkSchemaTask(task: SchemaTask): SchemaCheck {
  validator ??= new SchemaValidator(task.cacheSize);
  return validator.check(task.schemaText, task.answer);
}
