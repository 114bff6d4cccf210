/**
 * workplace_assistant (upstream's "workbench"): multi-step tool use in a simulated company. The model
 * reads and changes a five-table office database (emails, calendar, web analytics, project tasks, CRM)
 * plus a company directory through 27 tools; the reward is 1.0 when its calls leave the database in the
 * same state as the task's ground-truth calls (see verify.ts).
 *
 * Each rollout gets its own copy of the database at `/seed_session`; tables are immutable and shared, so a
 * copy is a handful of references and a change copies one table's row list, never its cells.
 * Tools answer as upstream's catch-all route: `POST /<tool>` with the arguments object, always 200
 * `{"output": ...}`, a Python error as the text "Error executing tool '<tool>': <error>".
 */
import {
  defineResourcesServer,
  type FunctionCallItem,
  NgymError,
  RequestValidationError,
  sessionIdOf,
  SessionStore,
} from 'ngym';
import {
  isPythonDict,
  PythonError,
  pythonJsonLoadsWithFloats,
  pythonStringRepr,
  type PythonValue,
} from 'ngym/python-compat';
import * as z from 'zod';
import { freshOffice, loadOfficeDatabase, type Office, resolveDatabaseDir } from './database/office.ts';
import { fastApiJson } from './fastapi-json.ts';
import { OFFICE_TOOL_DEFINITIONS, OFFICE_TOOLS_BY_NAME } from './tools/index.ts';
import { callOfficeTool } from './tools/tool.ts';
import { isCorrect } from './verify.ts';

/** Upstream's route: look the tool up (KeyError), call it with the arguments, turn any Python error into text. */
export function runToolRoute(name: string, kwargs: Record<string, PythonValue>, office: Office): PythonValue {
  try {
    const tool = OFFICE_TOOLS_BY_NAME.get(name);
    if (tool === undefined) throw new PythonError('KeyError', pythonStringRepr(name));
    return callOfficeTool(tool, kwargs, office);
  } catch (error) {
    if (error instanceof PythonError) return `Error executing tool '${name}': ${error.message}`;
    throw error;
  }
}

/** The body as FastAPI parses it (Python's json, so `60.0` stays a float); it must be an object. */
function parseToolArguments(text: string): Record<string, PythonValue> {
  let body: PythonValue;
  try {
    body = pythonJsonLoadsWithFloats(text);
  } catch (error) {
    throw new RequestValidationError([{ type: 'json_invalid', loc: ['body'], msg: `JSON decode error: ${error instanceof Error ? error.message : String(error)}`, input: text.slice(0, 200) }]);
  }
  if (!isPythonDict(body)) {
    throw new RequestValidationError([{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: body }]);
  }
  return body;
}

const definition = defineResourcesServer({
  className: 'WorkbenchResourcesServer',
  config: {
    /** Directory with emails.csv, calendar_events.csv, analytics_data.csv, project_tasks.csv,
     * customer_relationship_manager_data.csv and email_addresses.csv; null: the bundled synthetic database. */
    database_dirpath: z.string().nullable().default(null),
  },
  setup: ({ config, logger }) => {
    const directory = resolveDatabaseDir(config.database_dirpath);
    const database = loadOfficeDatabase(directory);
    logger.info({ directory, emails: database.emails.length, events: database.calendarEvents.length }, 'office database loaded');
    return { database, offices: new SessionStore<Office>() };
  },
  seedSession: (_row, { sessionId, state }) => {
    state.offices.set(sessionId, freshOffice(state.database));
    return {};
  },
  verifyRequest: z.looseObject({
    ground_truth: z.union([z.array(z.record(z.string(), z.string())), z.string()]),
  }),
  verify: (request, { sessionId, state }) => {
    // Verify replays from scratch; the session's copy is no longer needed.
    state.offices.delete(sessionId);
    const predicted = request.response.output.filter((item): item is FunctionCallItem => item.type === 'function_call');
    const groundTruth = typeof request.ground_truth === 'string' ? [] : request.ground_truth;
    return { reward: isCorrect(state.database, predicted, groundTruth) ? 1.0 : 0.0 };
  },
  routes: (app, { state }) => {
    app.post('/:tool_name', async (http) => {
      const body = parseToolArguments(await http.req.text());
      const office = state.offices.get(sessionIdOf(http));
      if (office === undefined) {
        throw new NgymError('NGYM_INVALID_REQUEST', 'Session not initialized. Please call seed_session first.', { status: 400 });
      }
      // Upstream drops arguments sent as null before calling the tool.
      const kwargs = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
      const output = runToolRoute(http.req.param('tool_name'), kwargs, office);
      return http.body(fastApiJson({ output }), 200, { 'content-type': 'application/json' });
    });
  },
});

/** `toolDefinitions()` lists upstream's 27 schemas, for the `tools` of a dataset row. */
export default Object.assign(definition, { toolDefinitions: () => OFFICE_TOOL_DEFINITIONS });
