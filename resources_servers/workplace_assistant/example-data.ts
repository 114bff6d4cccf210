/**
 * The environment's example tasks over the bundled synthetic database, and the hand-written model turns of
 * their example rollouts. `data/example.jsonl` and `data/example_rollouts.jsonl` are written from here:
 *
 *   npx tsx resources_servers/workplace_assistant/example-data.ts
 *
 * The rollouts come from running the turns below through simple_agent against the real server, so every
 * tool output in them is what the server answers (they replay under replay_model's strict mode).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonJsonDumps } from 'ngym/python-compat';
import { assistantMessage, exampleData, functionCall, scriptedModel, usage, writeExampleData } from 'ngym/testing';
import definition from './app.ts';

export const EXAMPLE_DATA = exampleData('workplace_assistant');

/** Upstream's system prompt (the simulated "now" and the meeting-hours rule). */
export const SYSTEM_PROMPT =
  "Today's date is Thursday, 2023-11-30 and the current time is 23:59:00. Remember the current date and time when answering queries. Meetings must not start before 9am or end after 6pm.";

interface Call {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ExampleTask {
  category: string;
  prompt: string;
  groundTruth: Call[];
  /** The example rollout: one tool call per model turn, then the final answer. */
  turns: Call[];
  answer: string;
}

const reply: Call = { name: 'email_reply_email', arguments: { email_id: '00000314', body: 'Thanks Lucas, I will send my comments by Friday.' } };
const moveReview: Call = { name: 'calendar_update_event', arguments: { event_id: '00000196', field: 'event_start', new_value: '2023-12-04 12:30:00' } };
const markWon: Call = { name: 'customer_relationship_manager_update_customer', arguments: { customer_id: '00000188', field: 'status', new_value: 'Won' } };
const createTask: Call = {
  name: 'project_management_create_task',
  arguments: { task_name: 'Set up error monitoring', assigned_to_email: 'hiroshi.tanaka@meridian.com', list_name: 'Backlog', due_date: '2023-12-15', board: 'Back end' },
};
const plot = (type: string): Call => ({
  name: 'analytics_create_plot',
  arguments: { time_min: '2023-11-01', time_max: '2023-11-30', value_to_plot: 'total_visits', plot_type: type },
});

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    category: 'workplace_assistant_email',
    prompt: "Reply to Lucas's last email about the Q4 roadmap with 'Thanks Lucas, I will send my comments by Friday.'",
    groundTruth: [reply],
    turns: [{ name: 'email_search_emails', arguments: { query: 'lucas Q4 roadmap', page: 1, page_size: 1 } }, reply],
    answer: "I replied to Lucas's email about the Q4 roadmap.",
  },
  {
    category: 'workplace_assistant_calendar',
    prompt: 'Push the Support Escalation Review on December 4 back by one hour.',
    groundTruth: [moveReview],
    turns: [
      {
        name: 'calendar_search_events',
        arguments: { query: 'Support Escalation Review', time_min: '2023-12-04 00:00:00', time_max: '2023-12-04 23:59:59' },
      },
      moveReview,
    ],
    answer: 'The Support Escalation Review on December 4 now starts at 12:30.',
  },
  {
    category: 'workplace_assistant_customer_relationship_manager',
    prompt: 'Blake Irwin accepted our proposal. Mark them as won in the CRM.',
    groundTruth: [markWon],
    turns: [{ name: 'customer_relationship_manager_search_customers', arguments: { customer_name: 'Blake Irwin' } }, markWon],
    answer: 'Blake Irwin is now marked as Won in the CRM.',
  },
  {
    category: 'workplace_assistant_project_management',
    prompt: "Create a task 'Set up error monitoring' for Hiroshi on the back end board. Put it in the backlog, due December 15.",
    groundTruth: [createTask],
    turns: [{ name: 'company_directory_find_email_address', arguments: { name: 'Hiroshi' } }, createTask],
    answer: "I created the task 'Set up error monitoring' for Hiroshi in the Back end backlog, due 2023-12-15.",
  },
  {
    category: 'workplace_assistant_analytics',
    prompt: 'Make a line plot of the total visits between November 1 and November 30.',
    groundTruth: [plot('line')],
    // This rollout makes a bar chart instead: reward 0.
    turns: [plot('bar')],
    answer: 'Here is the plot of total visits in November: plots/2023-11-01_2023-11-30_total_visits_bar.png',
  },
];

export function exampleRows(): Record<string, unknown>[] {
  const tools = definition.toolDefinitions();
  return EXAMPLE_TASKS.map((task, index) => ({
    id: index,
    // Upstream's ground truth holds `json.dumps` of the arguments.
    ground_truth: task.groundTruth.map((call) => ({ name: call.name, arguments: pythonJsonDumps(call.arguments) })),
    category: task.category,
    environment_name: 'workplace_assistant',
    responses_create_params: {
      input: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: task.prompt },
      ],
      tools,
      parallel_tool_calls: false,
      temperature: 1.0,
    },
  }));
}

/** The policy model of the example rollouts: each task's turns, one tool call a model turn, then its answer. */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const prompt = input.find((item) => 'role' in item && item.role === 'user' && typeof item.content === 'string');
    const taskIndex = EXAMPLE_TASKS.findIndex((task) => prompt !== undefined && 'content' in prompt && task.prompt === prompt.content);
    const task = EXAMPLE_TASKS[taskIndex] as ExampleTask;
    const step = input.filter((item) => item.type === 'function_call_output').length;
    const id = `${taskIndex}_${step}`;
    const turn = task.turns[step];
    const output = turn === undefined ? [assistantMessage(task.answer, { id: `msg_example_${id}` })] : [functionCall(turn.name, turn.arguments, `call_example_${id}`)];
    return { id: `resp_example_${id}`, created_at: 1_701_388_740 + step, model: 'example-model', output, usage: usage(1200 + 150 * step, 40) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
