/**
 * calendar: multi-turn calendar scheduling. Over a conversation the user adds events and constraints; the
 * model must answer with the whole calendar as a JSON list every turn. The reward is 1.0 when the last
 * answer's calendar holds exactly the expected events, without overlaps, each with its duration, inside
 * the allowed hours and honouring its constraint (grade.ts); otherwise 0.0. No tools, no session state.
 */
import { defineResourcesServer, firstPartText } from 'ngym';
import { type PythonValue } from 'ngym/python-compat';
import * as z from 'zod';
import { gradeCalendar } from './grade.ts';

export default defineResourcesServer({
  className: 'CalendarResourcesServer',
  verifyRequest: z.looseObject({
    /** Expected events by id: `{event_id, duration, constraint, min_time, max_time}`. */
    exp_cal_state: z.record(z.string(), z.custom<PythonValue>()),
  }),
  verify: (request) => {
    // Upstream grades `output[-1].content[0].text`; a last item without text (stopped while reasoning, a refusal) scores 0.
    const text = firstPartText(request.response.output.at(-1));
    if (text === '') return { reward: 0.0 };
    return { reward: gradeCalendar(text, request.exp_cal_state).reward };
  },
});
