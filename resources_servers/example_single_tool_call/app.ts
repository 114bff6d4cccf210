/**
 * example_single_tool_call: the smallest environment. One tool, `get_weather`, and a verify that always
 * rewards 1.0 (NeMo Gym v0.1.1's rule); it checks that a model can call a tool and that the loop works end to
 * end. Upstream 0.7.0 rewards only a response that calls get_weather; we keep 1.0 on purpose for now, because
 * the fault suite, the demo and the agent tests use this environment as the one where any reward but 1 means a
 * lost or mis-recorded rollout (docs/interop.md).
 */
import { defineResourcesServer } from 'ngym';
import * as z from 'zod';

export default defineResourcesServer({
  className: 'SimpleWeatherResourcesServer',
  tools: {
    get_weather: {
      description: '',
      parameters: z.strictObject({ city: z.string().describe('') }),
      handler: ({ city }) => ({ city, weather_description: `The weather in ${city} is cold.` }),
    },
  },
  verify: () => ({ reward: 1.0 }),
});
