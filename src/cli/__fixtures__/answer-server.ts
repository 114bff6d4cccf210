import * as z from 'zod';
import { defineResourcesServer } from '../../server/resources-server.ts';

/** A resources server that scores 1 when the model's last message is exactly the row's `answer`, else 0. */
export const answerServer = defineResourcesServer({
  className: 'EchoResourcesServer',
  verifyRequest: z.looseObject({ answer: z.string() }),
  verify: (request) => {
    const last = request.response.output.at(-1) as { content?: { text?: string }[] } | undefined;
    return { reward: last?.content?.[0]?.text === request.answer ? 1 : 0 };
  },
});
