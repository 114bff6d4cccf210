/**
 * The environment's example tasks, written for ngym: steps of conversations with the booking assistant of a made-up
 * ferry line (data/example.jsonl, with hand-written answers recorded as data/example_rollouts.jsonl) and parallel
 * lookups (data/parallel_example.jsonl). Written from here:
 *
 *   npx tsx resources_servers/single_step_tool_use_with_argument_comparison/example-data.ts
 *
 * The rollouts come from running each row through the config's agent against the real server, the policy model
 * answering with the scripted action of the task.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResponseItem } from 'ngym';
import { assistantMessage, type ExampleData, functionCall, scriptedModel, usage, writeExampleData } from 'ngym/testing';
import type { ExpectedAction } from './actions.ts';

const NAME = 'single_step_tool_use_with_argument_comparison';
const DATA = fileURLToPath(new URL('./data/', import.meta.url));

export const EXAMPLE_DATA: ExampleData = {
  configPath: `resources_servers/${NAME}/configs/${NAME}.yaml`,
  agent: `${NAME}_agent`,
  examplePath: join(DATA, 'example.jsonl'),
  rolloutsPath: join(DATA, 'example_rollouts.jsonl'),
};
export const PARALLEL_EXAMPLE_PATH = join(DATA, 'parallel_example.jsonl');

type Properties = Record<string, { type: string; description: string }>;

/** A strict function tool as upstream's rows carry them (nothing runs it: the next action is the answer). */
function tool(name: string, description: string, properties: Properties): Record<string, unknown> {
  return { type: 'function', name, description, strict: true, parameters: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false } };
}

const text = (description: string) => ({ type: 'string', description });

const FERRY_TOOLS = [
  tool('authenticate_customer', 'Verify the customer before any change to a booking.', { customer_id: text("Customer id, e.g. 'HF-10001'"), booking_reference: text('Six-character booking reference') }),
  tool('get_booking', 'Look up a booking: sailing, passengers and vehicles.', { booking_reference: text('Six-character booking reference') }),
  tool('list_sailings', 'List the sailings of a route on a date, with free car and foot places.', { route: text("Route code, e.g. 'ORK-SKR'"), date: text('Date, YYYY-MM-DD') }),
  tool('change_sailing', 'Move a booking to another sailing of the same route.', { booking_reference: text('Six-character booking reference'), sailing_id: text('Sailing id from list_sailings') }),
  tool('add_vehicle', 'Add a vehicle to a booking.', {
    booking_reference: text('Six-character booking reference'),
    vehicle_type: text("One of 'car', 'camper van', 'motorcycle', 'bicycle'"),
    length_m: { type: 'number', description: 'Vehicle length in metres' },
  }),
  tool('transfer_to_human_agent', 'Hand the conversation to a human agent, with a summary of what the customer needs.', { summary: text('What the customer needs and why it needs a human') }),
];

const POLICY =
  'You are the booking assistant of Harborline Ferries. Each turn, either send the customer one message or make one tool call.\n\n' +
  'Policy:\n- Authenticate the customer (customer id and booking reference) before looking up or changing a booking.\n' +
  '- Before moving a booking, show the customer the sailings with free places and let them choose.\n' +
  '- Vehicles longer than 5 m are booked as camper vans.\n' +
  '- Refunds are only given for sailings Harborline cancels; any other refund request goes to a human agent with a summary.';

const system = { type: 'message', role: 'system', content: POLICY };
const user = (content: string) => ({ type: 'message', role: 'user', content });
const assistant = (id: string, content: string) => ({ id: `msg_${id}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: content, annotations: [] }] });
const call = (id: string, name: string, args: Record<string, unknown>) => ({ type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name, arguments: JSON.stringify(args), status: 'completed' });
const output = (id: string, result: Record<string, unknown>) => ({ type: 'function_call_output', call_id: `call_${id}`, output: JSON.stringify(result) });

const AUTHENTICATED = { authenticated: true, customer_id: 'HF-20417', name: 'Ines Varga' };
const CREDENTIALS = { customer_id: 'HF-20417', booking_reference: 'KX7Q2P' };
const CHANGE_REQUEST = 'Hi, I need to change my crossing. Customer id HF-20417, booking KX7Q2P.';

/** The conversation's start: the policy, the customer's request, and the authentication the expert made first. */
const authenticated = (id: string, request: string) => [system, user(request), call(id, 'authenticate_customer', CREDENTIALS), output(id, AUTHENTICATED)];

/** The expert lists the 15 July sailings: the 09:15 has car places, the 11:30 has `placesAt1130`. */
const sailingsOn15July = (id: string, placesAt1130: number) => [
  call(id, 'list_sailings', { route: 'ORK-SKR', date: '2025-07-15' }),
  output(id, { sailings: [{ sailing_id: 'ORK-0915', departs: '09:15', car_places: 4 }, { sailing_id: 'ORK-1130', departs: '11:30', car_places: placesAt1130 }] }),
];
const BOOKING = { booking_reference: 'KX7Q2P', route: 'ORK-SKR', sailing_id: 'ORK-0730', date: '2025-07-14', passengers: 2, vehicles: [] };

export interface ExampleTask {
  input: unknown[];
  expected: ExpectedAction;
  /** What the example rollout's model answers: a tool call (name, arguments) or a message. */
  answer: { name: string; arguments: Record<string, unknown> } | { message: string };
}

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    // The first step: authenticate with what the customer gave. Answered right.
    input: [system, user(CHANGE_REQUEST)],
    expected: { type: 'function_call', name: 'authenticate_customer', arguments: JSON.stringify(CREDENTIALS) },
    answer: { name: 'authenticate_customer', arguments: { booking_reference: 'KX7Q2P', customer_id: 'HF-20417' } },
  },
  {
    // After listing the sailings, the policy says to let the customer choose: a message is expected. Answered with one.
    input: [
      ...authenticated('a1', CHANGE_REQUEST),
      assistant('a2', 'Thank you, Ines, you are verified. Which day would you like to travel instead?'),
      user('The 15th of July, any time before noon.'),
      ...sailingsOn15July('a3', 0),
    ],
    expected: { type: 'message', content: 'On 15 July the 09:15 sailing (ORK-0915) has places; the 11:30 is full. Shall I move your booking to the 09:15?' },
    answer: { message: 'There is room on the 09:15 sailing on 15 July (the 11:30 is full). Would you like me to move booking KX7Q2P to it?' },
  },
  {
    // The customer chose the 09:15; the rollout moves the booking to the 11:30 instead: a wrong argument value.
    input: [
      ...authenticated('b1', CHANGE_REQUEST),
      ...sailingsOn15July('b2', 2),
      assistant('b3', 'On 15 July there are places on the 09:15 (ORK-0915) and the 11:30 (ORK-1130). Which one suits you?'),
      user('The early one, please.'),
    ],
    expected: { type: 'function_call', name: 'change_sailing', arguments: JSON.stringify({ booking_reference: 'KX7Q2P', sailing_id: 'ORK-0915' }) },
    answer: { name: 'change_sailing', arguments: { booking_reference: 'KX7Q2P', sailing_id: 'ORK-1130' } },
  },
  {
    // The customer gave everything needed to add the van; the rollout asks again instead of calling the tool.
    input: [
      ...authenticated('c1', 'Booking KX7Q2P, customer HF-20417. We are bringing our camper van after all, it is 6.5 metres long.'),
      call('c2', 'get_booking', { booking_reference: 'KX7Q2P' }),
      output('c2', BOOKING),
    ],
    expected: { type: 'function_call', name: 'add_vehicle', arguments: JSON.stringify({ booking_reference: 'KX7Q2P', vehicle_type: 'camper van', length_m: 6.5 }) },
    answer: { message: 'Could you tell me the length of your camper van, so I can add it to the booking?' },
  },
  {
    // A refund outside the policy goes to a human; the rollout's summary says it in other words (strings match by shared words).
    input: [
      ...authenticated('d1', 'Customer HF-20417, booking KX7Q2P. My mother is in hospital and we cannot travel on the 14th. I want my money back.'),
      assistant('d2', 'I am sorry to hear that. Our sailing on the 14th is running as planned, so I cannot refund it myself.'),
      user('Then please get me someone who can.'),
    ],
    expected: {
      type: 'function_call',
      name: 'transfer_to_human_agent',
      arguments: JSON.stringify({ summary: 'Customer HF-20417 wants a refund for booking KX7Q2P on a sailing that is not cancelled, because of a family medical emergency.' }),
    },
    answer: { name: 'transfer_to_human_agent', arguments: { summary: 'Refund request for KX7Q2P (customer HF-20417): the sailing runs, but a family member is in hospital.' } },
  },
];

const LOOKUP_TOOLS = [
  tool('get_tide_times', 'High and low tides today at one port.', { port: text("Port name, e.g. 'Skerrin'") }),
  tool('get_exchange_rate', 'The exchange rate between two currencies.', { from_currency: text('ISO 4217 code'), to_currency: text('ISO 4217 code') }),
];

const LOOKUP_SYSTEM = {
  type: 'message',
  role: 'system',
  content: 'You answer with tools. When a question asks about several independent things, make one tool call for each, all in the same turn.',
};
const lookup = (question: string, expected: ExpectedAction) => ({
  responses_create_params: { input: [LOOKUP_SYSTEM, user(question)], tools: LOOKUP_TOOLS, tool_choice: 'auto', parallel_tool_calls: true, temperature: 0.0 },
  expected_action: expected,
});
const tides = (port: string) => ({ type: 'function_call' as const, name: 'get_tide_times', arguments: JSON.stringify({ port }) });
const rate = (from_currency: string, to_currency: string) => ({ type: 'function_call' as const, name: 'get_exchange_rate', arguments: JSON.stringify({ from_currency, to_currency }) });

/** data/parallel_example.jsonl: three calls of one tool, two of one tool, two tools, one call, and a message. */
export function parallelExampleRows(): Record<string, unknown>[] {
  return [
    lookup('When are the tides today at Skerrin, Port Teskin and Dunmere?', { type: 'function_call_batch', calls: [tides('Skerrin'), tides('Port Teskin'), tides('Dunmere')] }),
    lookup('How many Norwegian kroner and how many Icelandic kronur is one euro?', { type: 'function_call_batch', calls: [rate('EUR', 'NOK'), rate('EUR', 'ISK')] }),
    lookup('What are the tides at Skerrin today, and what is a pound in euros?', { type: 'function_call_batch', calls: [tides('Skerrin'), rate('GBP', 'EUR')] }),
    lookup('When is high tide at Dunmere today?', tides('Dunmere')),
    lookup('That is all I needed, thank you!', { type: 'message', content: 'You are welcome, have a good crossing!' }),
  ];
}

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => ({
    responses_create_params: { input: task.input, tools: FERRY_TOOLS, tool_choice: 'auto', parallel_tool_calls: false },
    expected_action: task.expected,
  }));
}

/** The policy model of the example rollouts: each task's scripted answer, found by the conversation it is given. */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const index = EXAMPLE_TASKS.findIndex((task) => JSON.stringify(task.input.at(-1)) === JSON.stringify(input.at(-1)) && task.input.length === input.length);
    const { answer } = EXAMPLE_TASKS[index] as ExampleTask;
    const item: ResponseItem = 'message' in answer ? assistantMessage(answer.message, { id: `msg_example_${index}` }) : functionCall(answer.name, answer.arguments, `call_example_${index}`);
    return { id: `resp_example_${index}`, created_at: 1_764_000_000 + index, model: 'example-model', output: [item], usage: usage(900 + 150 * input.length, 40) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  writeFileSync(PARALLEL_EXAMPLE_PATH, parallelExampleRows().map((row) => JSON.stringify(row)).join('\n') + '\n');
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath}, ${EXAMPLE_DATA.rolloutsPath} and ${PARALLEL_EXAMPLE_PATH}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
