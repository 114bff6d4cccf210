/**
 * format_verification: text-formatting and citation instructions graded by form only, following NeMo Gym 0.7.0.
 * Each row's `verifier` names the check (checks.ts): `regex`/`inline_prose` count the lines of the answer that
 * match a pattern (bullets, headings, tables, key-value lines...), `string_match` looks for the citation markers
 * the answer must carry and for ones it must not. The answer is the response's output_text: every output_text part
 * of every message, joined without separator. Reward 1.0 or 0.0, with `match_details` saying why.
 */
import { defineResourcesServer, responseOutputText } from 'ngym';
import * as z from 'zod';
import { checkLines, checkMarkers, Verifier } from './checks.ts';

export default defineResourcesServer({
  className: 'FormatVerificationResourcesServer',
  verifyRequest: z.looseObject({ verifier: Verifier }),
  verify: (request) => {
    const text = responseOutputText(request.response);
    const verifier = request.verifier;
    return verifier.type === 'string_match' ? checkMarkers(text, verifier) : checkLines(text, verifier);
  },
});
