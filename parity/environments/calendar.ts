/**
 * calendar: the example rollouts, then generated calendars (1 to 4 events, each with no constraint or a before /
 * after / between / at constraint) and schedules a policy writes for them: random start times (so some fit and
 * some conflict or break a constraint) in 24-hour and 12-hour forms, plain, fenced, in prose, with an event
 * missing or added, ids as strings, two lists, `<think>` left in, empty, truncated, a tool call last.
 */
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

function twelveHour(minutes: number, random: Random): string {
  const hour = Math.floor(minutes / 60);
  const minute = minutes % 60;
  const shown = hour % 12 === 0 ? 12 : hour % 12;
  const suffix = hour < 12 ? 'am' : 'pm';
  return minute === 0 && random.chance(0.5) ? `${shown}${suffix}` : `${shown}:${String(minute).padStart(2, '0')}${suffix}`;
}

const clock = (minutes: number): string => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

function constraint(random: Random): string | null {
  const at = (low: number, high: number) => twelveHour(random.int(low, high) * 15, random);
  switch (random.pick(['none', 'none', 'before', 'after', 'between', 'at'])) {
    case 'before':
      return `before ${at(44, 64)}`;
    case 'after':
      return `after ${at(40, 56)}`;
    case 'between': {
      const start = random.int(40, 52);
      return `between ${twelveHour(start * 15, random)} and ${twelveHour((start + random.int(4, 12)) * 15, random)}`;
    }
    case 'at':
      return `at ${at(40, 60)}`;
    default:
      return null;
  }
}

function generated(random: Random, index: number): ParityCase {
  const size = random.pick([0, 1, 2, 2, 3, 4]);
  const state: Record<string, unknown> = {};
  for (let id = 0; id < size; id += 1) state[String(id)] = { event_id: id, duration: random.pick([15, 30, 45, 60, 90]), constraint: constraint(random), min_time: '10:00', max_time: '16:00' };
  const timeForm = random.pick(['24h', '24h', '12h', '12h_upper']);
  let events: Record<string, unknown>[] = Object.values(state).map((event) => {
    const { event_id, duration } = event as { event_id: number; duration: number };
    const start = random.int(40, 62) * 15;
    const written = timeForm === '24h' ? clock(start) : timeForm === '12h' ? twelveHour(start, random) : twelveHour(start, random).toUpperCase();
    return { event_id, event_name: `Event ${event_id}`, start_time: written, duration };
  });
  const shape = random.pick(['plain', 'plain', 'plain', 'fenced', 'prose', 'missing_event', 'extra_event', 'string_ids', 'two_lists', 'think', 'empty', 'truncated', 'tool_call_last']);
  if (shape === 'missing_event') events = events.slice(1);
  if (shape === 'extra_event') events = [...events, { event_id: size, event_name: 'Extra', start_time: '15:00', duration: 30 }];
  if (shape === 'string_ids') events = events.map((event) => ({ ...event, event_id: String(event.event_id) }));
  const list = JSON.stringify(events, null, random.pick([0, 2]));
  const text: Record<string, string> = {
    fenced: `\`\`\`json\n${list}\n\`\`\``,
    prose: `Here is the updated calendar:\n${list}\nLet me know if you need changes.`,
    two_lists: `Draft: [{"event_id": 0, "start_time": "09:00", "duration": 10}]\nFinal: ${list}`,
    think: `<think>placing events</think>${list}`,
    empty: '',
    truncated: truncate(list, 0.6),
  };
  const message = text[shape] ?? list;
  const output = shape === 'tool_call_last' ? [textOutput(list, index), callOutput('get_calendar', {}, index)] : [textOutput(message, index)];
  return {
    kind: shape,
    detail: `${size} events, ${timeForm}`,
    verify: { responses_create_params: { input: [{ role: 'user', content: 'Schedule the events.' }] }, exp_cal_state: state, response: response(output, index) },
  };
}

export const calendar: ParityEnvironment = {
  name: 'calendar',
  configs: { ngym: 'calendar.yaml', upstream: 'calendar.yaml' },
  fields: [],
  generate(random, count) {
    const cases = dataRows('calendar', 'example_rollouts.jsonl').map((row) => rolloutCase(row, []));
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases;
  },
};
