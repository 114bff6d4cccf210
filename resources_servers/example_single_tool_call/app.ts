/**
 * example_single_tool_call: the smallest environment. One tool, `get_weather`; verify rewards 1.0 when the
 * response calls get_weather (any arguments) and 0.0 otherwise, upstream 0.7.0's rule (v0.1.1 rewarded every
 * response 1.0). It checks that a model can call a tool and that the loop works end to end.
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
  verify: ({ response }) => ({ reward: response.output.some((item) => item.type === 'function_call' && item.name === 'get_weather') ? 1.0 : 0.0 }),
});
