/**
 * The environment's example tasks and the final answers of their example rollouts. `data/example.jsonl`
 * and `data/example_rollouts.jsonl` are written from here:
 *
 *   npx tsx resources_servers/calendar/example-data.ts
 *
 * The rollouts come from running the answers through simple_agent against the real server, so their
 * rewards are the server's (1, 0 for a violated constraint, 1 with 12-hour times, 0 for overlapping
 * events, 0 for a missing event).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonJsonDumps } from 'ngym/python-compat';
import { assistantMessage, exampleData, scriptedModel, usage, writeExampleData } from 'ngym/testing';

export const EXAMPLE_DATA = exampleData('calendar');

/** The rules upstream's system prompt gives the model. */
export const SYSTEM_PROMPT = `You are a helpful assistant. If asked to help with organizing the user's calendar, follow these rules:

1. Calendar format: print the calendar as a JSON list whose entries have "event_id" (unique integer id), "event_name" (string), "start_time" (string, 24-hour HH:MM) and "duration" (integer, minutes).
2. The calendar is empty at the start of the conversation.
3. Honour every time constraint the user gives for an event ("before 11am", "after 2pm", "at 11:15am"). Constraints stay in force when events are rescheduled.
4. Events must not overlap. If a new event conflicts with an existing one, move events to the next free slot that respects all constraints, without asking the user.
5. "before 11am" means the event ends at or before 11am; "after 2pm" means it starts at or after 2pm.
6. Answer other requests as a helpful assistant.
7. All events are between 10am and 4pm.
8. Do not ask the user follow-up questions.
9. Show the calendar as a JSON list in every answer, e.g. [{"event_id": 0, "event_name": "event name", "start_time": "10:00", "duration": 60}]`;

interface Event {
  id: number;
  name: string;
  start: string;
  duration: number;
}

interface ExampleTask {
  /** User turns; each but the last is answered with the calendar at that point. */
  turns: { user: string; calendar: Event[] }[];
  lastUser: string;
  expected: Record<string, { event_id: number; duration: number; constraint: string | null; min_time: string; max_time: string }>;
  /** The example rollout's final answer. */
  answer: string;
}

/** The calendar as the assistant prints it (Python's json.dumps spacing). */
const show = (events: Event[]) =>
  pythonJsonDumps(events.map((event) => ({ event_id: event.id, event_name: event.name, start_time: event.start, duration: event.duration })));

const expect = (id: number, duration: number, constraint: string | null) => ({ event_id: id, duration, constraint, min_time: '10:00', max_time: '16:00' });

const budget: Event = { id: 0, name: 'Quarterly budget review', start: '10:00', duration: 60 };
const standup: Event = { id: 0, name: 'Team standup', start: '10:00', duration: 30 };
const design: Event = { id: 1, name: 'Design critique', start: '10:30', duration: 45 };
const interview: Event = { id: 0, name: 'Interview: backend engineer', start: '10:00', duration: 60 };
const offsite: Event = { id: 0, name: 'Offsite planning', start: '10:00', duration: 90 };

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    turns: [
      { user: 'Please add "Quarterly budget review" to my calendar, 60 minutes. (event id: 0)', calendar: [budget] },
      { user: 'The budget review (event id: 0) has to end before noon.', calendar: [budget] },
    ],
    lastUser: 'Also add a 30-minute "Vendor call" at 2pm. (event id: 1)',
    expected: { '0': expect(0, 60, 'before 12pm'), '1': expect(1, 30, 'at 2pm') },
    answer: show([budget, { id: 1, name: 'Vendor call', start: '14:00', duration: 30 }]),
  },
  {
    turns: [
      { user: 'Schedule a 30 minute "Team standup". (event id: 0)', calendar: [standup] },
      { user: 'Add a 45-minute "Design critique" too. (event id: 1)', calendar: [standup, design] },
    ],
    lastUser: 'The design critique (event id: 1) must happen between 1pm and 3pm.',
    expected: { '0': expect(0, 30, null), '1': expect(1, 45, 'between 1pm and 3pm') },
    // Moved, but to 2:30pm: it would end at 3:15pm, after the window.
    answer: `Done, I moved the critique.\n\n${show([standup, { ...design, start: '14:30' }])}`,
  },
  {
    turns: [{ user: 'Book "Interview: backend engineer" for an hour, after 11am. (event id: 0)', calendar: [{ ...interview, start: '11:00' }] }],
    lastUser: 'And add "Debrief with recruiter", 30 minutes, right after the interview. (event id: 1)',
    expected: { '0': expect(0, 60, 'after 11am'), '1': expect(1, 30, null) },
    // 12-hour start times parse too.
    answer: '[{"event_id": 0, "event_name": "Interview: backend engineer", "start_time": "11:00am", "duration": 60}, {"event_id": 1, "event_name": "Debrief with recruiter", "start_time": "12pm", "duration": 30}]',
  },
  {
    turns: [
      { user: 'Put "Offsite planning" on my calendar for 90 minutes. (event id: 0)', calendar: [offsite] },
      { user: 'Add a 60-minute "Customer demo" at 11am. (event id: 1)', calendar: [{ ...offsite, start: '12:00' }, { id: 1, name: 'Customer demo', start: '11:00', duration: 60 }] },
    ],
    lastUser: 'Add "Lunch with Priya", 45 minutes, after 12:30pm. (event id: 2)',
    expected: { '0': expect(0, 90, null), '1': expect(1, 60, 'at 11am'), '2': expect(2, 45, 'after 12:30pm') },
    // The lunch overlaps the offsite planning.
    answer: show([
      { ...offsite, start: '12:00' },
      { id: 1, name: 'Customer demo', start: '11:00', duration: 60 },
      { id: 2, name: 'Lunch with Priya', start: '13:00', duration: 45 },
    ]),
  },
  {
    turns: [{ user: 'Add "Code review" for 45 minutes at 10:15am. (event id: 0)', calendar: [{ id: 0, name: 'Code review', start: '10:15', duration: 45 }] }],
    lastUser: 'Add "Sprint retro", 60 minutes, before 3pm. (event id: 1)',
    expected: { '0': expect(0, 45, 'at 10:15am'), '1': expect(1, 60, 'before 3pm') },
    // The new event is missing from the calendar.
    answer: `Sure! ${show([{ id: 0, name: 'Code review', start: '10:15', duration: 45 }])}`,
  },
];

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => ({
    responses_create_params: {
      input: [
        { role: 'system', content: SYSTEM_PROMPT },
        ...task.turns.flatMap((turn) => [
          { role: 'user', content: turn.user },
          { role: 'assistant', content: show(turn.calendar) },
        ]),
        { role: 'user', content: task.lastUser },
      ],
      tools: [],
    },
    exp_cal_state: task.expected,
  }));
}

/** The policy model of the example rollouts: it gives each task's answer. */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const last = input.at(-1) as { content?: unknown };
    const index = EXAMPLE_TASKS.findIndex((task) => task.lastUser === last.content);
    const task = EXAMPLE_TASKS[index] as ExampleTask;
    return { id: `resp_example_${index}`, created_at: 1_701_388_740, model: 'example-model', output: [assistantMessage(task.answer, { id: `msg_example_${index}` })], usage: usage(900, 120) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
