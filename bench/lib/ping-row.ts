/** The benchmark task: one call of bench_trivial's `ping` tool, then an answer. */
export const PING_ROW = {
  responses_create_params: {
    input: [
      { role: 'system', content: 'You are a benchmark agent. Call the ping tool once, then answer.' },
      { role: 'user', content: 'Please ping.' },
    ],
    tools: [{ type: 'function', name: 'ping', description: 'Does nothing.', parameters: { type: 'object', properties: {} }, strict: true }],
  },
};
