/**
 * The text the model reads after a `stateful_python_code_exec` call. Upstream returns the tool's result as plain
 * text (no JSON around it): its recorded rollouts show a cell's output as a notebook shows it, stdout and
 * the displayed value of the last expression, or a traceback. Failures keep the JSON shapes upstream's own
 * code gives them: a sandbox timeout is an object whose `process_status` is "timeout" (what upstream counts as
 * `tool_timeout_count`), a call that got no answer is upstream's `{"error": "Request timeout", ...}`.
 */
import { pythonJsonDumps } from 'ngym/python-compat';

/** The worker's answer for one cell; stdout and stderr already cleaned, stripped and cut (ipython-worker.py). */
export interface CellAnswer {
  status: 'completed' | 'error' | 'timeout';
  stdout: string;
  stderr: string;
}

const TIMED_OUT = 'Timed out';

/** What upstream answers when the tool's request itself times out (app.py's `httpx.TimeoutException` branch). */
export const REQUEST_TIMEOUT_OUTPUT = pythonJsonDumps({ error: 'Request timeout', process_status: 'timeout' });

/** Told to the model (in stderr) when its session's interpreter had ended and was started afresh without replay. */
export const SESSION_LOST_WARNING =
  'Warning: the Python session was restarted after its previous process ended; variables, functions and imports from earlier calls are gone.';

const joined = (...parts: string[]) => parts.filter((part) => part !== '').join('\n');

/** A cell's output as the model sees it; `warning` goes first in stderr. */
export function cellOutput(answer: CellAnswer, warning = ''): string {
  if (answer.status === 'timeout') {
    return pythonJsonDumps({ process_status: 'timeout', stdout: answer.stdout, stderr: joined(warning, answer.stderr, TIMED_OUT) });
  }
  return joined(answer.stdout, joined(warning, answer.stderr));
}

/** The call whose interpreter ended under it (a memory limit, `os._exit`, a crash). */
export function endedOutput(reason: string): string {
  return pythonJsonDumps({ error: `The Python process ended during the call (${reason}); the session restarts at the next call.` });
}
