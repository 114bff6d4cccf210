/**
 * A SWE-bench row as the swebench server reads it (upstream 0.7.0's data shape, the fields of a
 * princeton-nlp/SWE-bench row), the image its box starts from (swebench 4.1.0's `instance_image_key`), and the
 * evaluation script a verify box runs: the model's patch applied as swebench's harness applies it, the tests
 * restored, the row's test command between the test-output markers the grader reads.
 */
import { NgymError } from 'ngym';
import * as z from 'zod';
import { LOG_PARSERS, LogMarker, type LogParserName, PARSER_OF_REPOSITORY } from './grading/index.ts';

const TestList = z.union([z.string(), z.array(z.string())]);

/** The row's fields the server reads; the rest of the row passes through (upstream's rows carry more). */
export const SwebenchInstanceFields = z.looseObject({
  instance_id: z.string().min(1),
  repo: z.string().min(1),
  base_commit: z.string().min(1),
  /** The gold patch (used when the server verifies golden patches). */
  patch: z.string().optional(),
  /** Applied after the model's patch, before the tests run (SWE-bench's new or changed tests). */
  test_patch: z.string().optional(),
  FAIL_TO_PASS: TestList,
  PASS_TO_PASS: TestList,
  /** ngym: the image to run; default swebench 4.1.0's instance image (`docker.io/swebench/sweb.eval.x86_64.<id>:latest`). */
  image: z.string().min(1).optional(),
  /** ngym: the command that runs the tests in the image's workdir (SWE-bench keeps it in per-repository specs, not rows). */
  test_cmd: z.string().min(1).optional(),
  /** ngym: the log parser, for a repository swebench has none mapped for (one of grading's LOG_PARSERS). */
  log_parser: z.string().min(1).optional(),
});
export type SwebenchInstance = z.infer<typeof SwebenchInstanceFields>;

/** swebench 4.1.0's `instance_image_key` with namespace `swebench` and tag `latest`, as upstream's server makes it, in Docker's full form. */
export function instanceImageKey(instanceId: string, arch = 'x86_64'): string {
  return `docker.io/swebench/sweb.eval.${arch}.${instanceId.toLowerCase()}:latest`.replaceAll('__', '_1776_');
}

/** The image a row's boxes start from. */
export const imageOf = (instance: SwebenchInstance): string => instance.image ?? instanceImageKey(instance.instance_id);

/** The parser that reads the row's test log; a clear error when neither the row nor swebench's map names one. */
export function logParserOf(instance: SwebenchInstance): LogParserName {
  const named = instance.log_parser;
  if (named !== undefined) {
    if (!Object.hasOwn(LOG_PARSERS, named)) throw new NgymError('NGYM_INVALID_REQUEST', `${instance.instance_id}: log_parser ${JSON.stringify(named)} is not one of ${Object.keys(LOG_PARSERS).join(', ')}`, { status: 422 });
    return named as LogParserName;
  }
  const mapped = Object.hasOwn(PARSER_OF_REPOSITORY, instance.repo) ? PARSER_OF_REPOSITORY[instance.repo] : undefined;
  if (mapped === undefined) throw new NgymError('NGYM_INVALID_REQUEST', `${instance.instance_id}: swebench has no log parser for ${JSON.stringify(instance.repo)}; name one in the row's log_parser`, { status: 422 });
  return mapped;
}

/** The row's test command; SWE-bench's own rows need it added (ngym does not carry swebench's per-repository specs). */
export function testCommandOf(instance: SwebenchInstance): string {
  if (instance.test_cmd === undefined) {
    throw new NgymError('NGYM_INVALID_REQUEST', `${instance.instance_id}: the row has no test_cmd (the command that runs its tests in the image's workdir, e.g. "pytest -rA tests/test_x.py"); ngym's swebench server does not carry swebench's per-repository specs`, { status: 422 });
  }
  return instance.test_cmd;
}

const testNames = (value: string | readonly string[]): readonly string[] => {
  if (typeof value !== 'string') return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    return [];
  }
};

/** Files a diff touches (its `+++ b/` and `--- a/` paths). */
const filesOfDiff = (diff: string): string[] => [...diff.matchAll(/^(?:\+\+\+ b\/|--- a\/)(\S+)/gm)].map((match) => match[1] as string);

/**
 * The test files restored from the base commit before the tests run, so a patch cannot change what grades it:
 * those the test patch touches (as swebench's eval script does) and the files of the graded pytest ids.
 */
export function testFilesOf(instance: SwebenchInstance): string[] {
  const fromIds = [...testNames(instance.FAIL_TO_PASS), ...testNames(instance.PASS_TO_PASS)].filter((name) => name.includes('::')).map((name) => name.split('::')[0] as string);
  return [...new Set([...filesOfDiff(instance.test_patch ?? ''), ...fromIds])].filter((path) => /^[\w./-]+$/.test(path) && !path.split('/').includes('..')).sort();
}

const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/** Where the evaluation script finds the patches in the verify box. */
export const MODEL_PATCH_PATH = '/tmp/ngym_model.patch';
export const TEST_PATCH_PATH = '/tmp/ngym_test.patch';

/**
 * The verify box's script (run in the image's workdir): apply the model's patch with the three tries swebench's
 * harness makes (`git apply`, `git apply --reject`, `patch --fuzz=5`), printing its markers; restore the test files
 * from the base commit (a deleted test comes back); apply the test patch; run the tests between the test-output
 * markers.
 */
export function evaluationScript(instance: SwebenchInstance, hasModelPatch: boolean): string {
  const restore = testFilesOf(instance);
  const lines = ['set -u', 'git config --global --add safe.directory "$PWD" 2>/dev/null'];
  if (hasModelPatch) {
    lines.push(
      `if git apply --verbose ${MODEL_PATCH_PATH} || git apply --verbose --reject ${MODEL_PATCH_PATH} || patch --batch --fuzz=5 -p1 -i ${MODEL_PATCH_PATH}; then echo ${quote(LogMarker.APPLY_PATCH_PASS)}; else echo ${quote(LogMarker.APPLY_PATCH_FAIL)}; exit 0; fi`,
    );
  }
  if (restore.length > 0) lines.push(`for f in ${restore.map(quote).join(' ')}; do git checkout ${quote(instance.base_commit)} -- "$f" 2>/dev/null || true; done`);
  if ((instance.test_patch ?? '') !== '') lines.push(`git apply --verbose ${TEST_PATCH_PATH} || { echo ${quote(LogMarker.TESTS_ERROR)} test patch did not apply; exit 0; }`);
  lines.push(`echo ${quote(LogMarker.START_TEST_OUTPUT)}`, testCommandOf(instance), `echo ${quote(LogMarker.END_TEST_OUTPUT)}`);
  return `${lines.join('\n')}\n`;
}
