/**
 * calendar: multi-turn calendar scheduling. Over a conversation the user adds events and constraints; the
 * model must answer with the whole calendar as a JSON list every turn. The reward is 1.0 when the last
 * answer's calendar holds exactly the expected events, without overlaps, each with its duration, inside
 * the allowed hours and honouring its constraint (grade.ts); otherwise 0.0. No tools, no session state.
 */
import { defineResourcesServer, type PythonValue, type ResponseItem } from 'ngym';
import * as z from 'zod';
import { gradeCalendar } from './grade.ts';

/**
 * The text upstream grades: the first content part of the last output item. A last item without text (the
 * model stopped while reasoning, a refusal) scores 0, as upstream does since it stopped crashing on it.
 */
export function lastText(output: readonly ResponseItem[]): string {
  const last = output.at(-1) as { content?: unknown } | undefined;
  const content = last?.content;
  if (!Array.isArray(content) || content.length === 0) return '';
  const text = (content[0] as { text?: unknown }).text;
  return typeof text === 'string' ? text : '';
}

export default defineResourcesServer({
  className: 'CalendarResourcesServer',
  verifyRequest: z.looseObject({
    /** Expected events by id: `{event_id, duration, constraint, min_time, max_time}`. */
    exp_cal_state: z.record(z.string(), z.custom<PythonValue>()),
  }),
  verify: (request) => {
    const text = lastText(request.response.output);
    if (text === '') return { reward: 0.0 };
    return { reward: gradeCalendar(text, request.exp_cal_state).reward };
  },
});
