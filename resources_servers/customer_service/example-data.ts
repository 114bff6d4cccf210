/**
 * The environment's example tasks and the hand-written episodes of their example rollouts. The data files are
 * written from here:
 *
 *   npx tsx resources_servers/customer_service/example-data.ts
 *
 * Each episode runs through simulated_user_agent against the real server, with a scripted policy and a
 * scripted user model saying the lines below, so every tool output, user turn and reward in the files is what
 * the servers answer. `data/example_rollouts.jsonl` holds the rollouts (replay_model serves the policy from
 * them) and `data/example_user_rollouts.jsonl` the user model's side (replay_model serves the user from it).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMessage, messageTexts, type Response, type ResponseItem } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';
import {
  assistantMessage,
  callServer,
  functionCall,
  modelResponse,
  scriptedModel,
  startInProcessGym,
  usage,
} from 'ngym/testing';
import definition from './app.ts';

const DATA = join(PACKAGE_ROOT, 'resources_servers', 'customer_service', 'data');
export const CONFIG_PATH = 'resources_servers/customer_service/configs/customer_service.yaml';
export const AGENT = 'customer_service_simulated_user_agent';
export const PATHS = {
  example: join(DATA, 'example.jsonl'),
  rollouts: join(DATA, 'example_rollouts.jsonl'),
  userRollouts: join(DATA, 'example_user_rollouts.jsonl'),
};

export const SYSTEM_PROMPT =
  'You are the customer-service assistant of Northwind Goods. Before looking at or changing any order, ask for the email address on the account and look the customer up with find_customer_by_email; act only on that customer\'s orders. Addresses can be changed and orders cancelled only while an order is processing; only delivered orders can be refunded. Ask before cancelling or refunding. Tell the customer the outcome with the order number, and any refund amount or tracking number.';

interface Call {
  name: string;
  arguments: Record<string, unknown>;
}

interface PolicyTurn {
  /** Tool calls, one per model step, before the answer. */
  calls: Call[];
  say: string;
}

export interface ExampleTask {
  category: string;
  opening: string;
  instructions: string;
  expectedOrders: Record<string, Record<string, unknown>>;
  requiredInformation: string[];
  /** The example episode: the policy's turns and the user's replies between them. */
  policy: PolicyTurn[];
  user: string[];
}

const ASK_EMAIL = 'I can help with that. What is the email address on your account, and the order number if you have it?';
const find = (email: string): Call => ({ name: 'find_customer_by_email', arguments: { email } });
const details = (orderId: string): Call => ({ name: 'get_order_details', arguments: { order_id: orderId } });

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    category: 'change_address',
    opening: 'Hi, I moved last week and I need my running shoes delivered to my new place.',
    instructions:
      'You are Ana Silva, email ana.silva@example.com. Your order W1001 (trail running shoes) has not shipped yet and must go to your new address: 9 Avenida da Liberdade, 1250-096 Lisbon.',
    expectedOrders: { W1001: { shipping_address: '9 Avenida da Liberdade, 1250-096 Lisbon' } },
    requiredInformation: ['9 Avenida da Liberdade'],
    policy: [
      { calls: [], say: ASK_EMAIL },
      { calls: [find('ana.silva@example.com'), details('W1001')], say: "Thanks, Ana. Order W1001 hasn't shipped yet, so I can still change its address. What is the new address?" },
      {
        calls: [{ name: 'change_shipping_address', arguments: { order_id: 'W1001', new_address: '9 Avenida da Liberdade, 1250-096 Lisbon' } }],
        say: 'Done: order W1001 will now be delivered to 9 Avenida da Liberdade, 1250-096 Lisbon.',
      },
    ],
    user: ["It's ana.silva@example.com, and the order is W1001.", '9 Avenida da Liberdade, 1250-096 Lisbon.'],
  },
  {
    category: 'refund',
    opening: 'Hello, the mugs I ordered arrived broken.',
    instructions:
      'You are Ben Okafor, email ben.okafor@example.com. Order W1002 (a ceramic mug set and a tea infuser) arrived with the mugs broken. You want a full refund of the order, not a replacement.',
    expectedOrders: { W1002: { status: 'refunded', refund_amount: 45 } },
    requiredInformation: ['$45.00'],
    policy: [
      { calls: [], say: ASK_EMAIL },
      { calls: [find('ben.okafor@example.com'), details('W1002')], say: "I'm sorry about that, Ben. Order W1002 was delivered, so I can refund it in full: $45.00. Shall I go ahead?" },
      {
        calls: [{ name: 'refund_order', arguments: { order_id: 'W1002', reason: 'Mugs arrived broken' } }],
        say: 'Order W1002 is refunded: $45.00 will be back on your card within 5 business days.',
      },
    ],
    user: ['ben.okafor@example.com, order W1002.', 'Yes please, a full refund.'],
  },
  {
    category: 'order_status',
    opening: "Where is my blanket? I ordered it a week ago and it still hasn't arrived.",
    instructions:
      'You are Chloe Martin, email chloe.martin@example.com. You ordered a wool blanket (order W1003) and want to know where it is and its tracking number. You do not want to cancel or change anything.',
    expectedOrders: {},
    requiredInformation: ['TRK-88231'],
    policy: [
      { calls: [], say: ASK_EMAIL },
      { calls: [find('chloe.martin@example.com'), details('W1003')], say: 'Thanks, Chloe. Order W1003 has shipped and is on its way to 22 Rue Oberkampf; its tracking number is TRK-88231.' },
    ],
    user: ['chloe.martin@example.com, the order number is W1003.'],
  },
  {
    category: 'cancel',
    opening: "I'd like to cancel my desk lamp order, please.",
    instructions:
      'You are Dev Patel, email dev.patel@example.com. You found a cheaper desk lamp elsewhere and want to cancel your lamp order and get your money back. You do not remember the order number.',
    expectedOrders: { W1004: { status: 'cancelled', refund_amount: 32.5 } },
    requiredInformation: ['W1004', '$32.50'],
    policy: [
      { calls: [], say: ASK_EMAIL },
      {
        calls: [find('dev.patel@example.com'), { name: 'list_customer_orders', arguments: { customer_id: 'C004' } }],
        say: "Thanks, Dev. I see order W1004 (a desk lamp, $32.50), which hasn't shipped yet. Do you want me to cancel it?",
      },
      {
        calls: [{ name: 'cancel_order', arguments: { order_id: 'W1004', reason: 'Customer found a cheaper lamp' } }],
        say: 'Order W1004 is cancelled, and the $32.50 will be refunded to you.',
      },
    ],
    user: ["dev.patel@example.com. I don't have the order number, sorry.", 'Yes, cancel it.'],
  },
  {
    category: 'change_address_shipped',
    opening: 'Hi! Can you send my rain jacket to a different address?',
    instructions:
      'You are Ana Silva, email ana.silva@example.com. You want your rain jacket (order W1005) sent to 9 Avenida da Liberdade, 1250-096 Lisbon. If the address cannot be changed, ask whether the order can be cancelled; if that is not possible either, thank the assistant and end.',
    expectedOrders: {},
    requiredInformation: ['TRK-90017'],
    // This policy never gives the tracking number the customer needs to follow the parcel: reward 0.
    policy: [
      { calls: [], say: ASK_EMAIL },
      {
        calls: [find('ana.silva@example.com'), details('W1005'), { name: 'change_shipping_address', arguments: { order_id: 'W1005', new_address: '9 Avenida da Liberdade, 1250-096 Lisbon' } }],
        say: "I'm sorry, Ana: order W1005 has already shipped, so its address can no longer be changed.",
      },
      { calls: [{ name: 'cancel_order', arguments: { order_id: 'W1005', reason: 'Customer asked' } }], say: "I'm afraid a shipped order can't be cancelled either." },
    ],
    user: ['ana.silva@example.com, order W1005.', 'Then can you cancel it instead?', 'OK, thanks anyway. ###STOP###'],
  },
];

export function exampleRows(): Record<string, unknown>[] {
  const tools = definition.toolDefinitions();
  return EXAMPLE_TASKS.map((task, index) => ({
    id: index,
    category: task.category,
    environment_name: 'customer_service',
    responses_create_params: {
      input: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: task.opening },
      ],
      tools,
      parallel_tool_calls: false,
      temperature: 1.0,
    },
    simulated_user: { instructions: task.instructions },
    expected_orders: task.expectedOrders,
    required_information: task.requiredInformation,
  }));
}

const textOf = (item: ResponseItem) => (isMessage(item) ? messageTexts(item).join('') : '');
const roleOf = (item: ResponseItem) => (isMessage(item) ? item.role : undefined);

function taskOf(predicate: (task: ExampleTask) => boolean): [number, ExampleTask] {
  const index = EXAMPLE_TASKS.findIndex(predicate);
  if (index < 0) throw new Error('No example task matches this conversation.');
  return [index, EXAMPLE_TASKS[index] as ExampleTask];
}

/** The policy: the task is the one whose opening the conversation starts with; the turn is the count of user messages. */
function examplePolicy() {
  return scriptedModel(({ input }) => {
    const users = input.filter((item) => roleOf(item) === 'user');
    const [taskIndex, task] = taskOf((candidate) => candidate.opening === textOf(users[0] as ResponseItem));
    const turnIndex = users.length - 1;
    const turn = task.policy[turnIndex] as PolicyTurn;
    const step = input.length - 1 - input.findLastIndex((item) => roleOf(item) === 'user');
    const callIndex = step / 2;
    const id = `${taskIndex}_${turnIndex}_${callIndex}`;
    const call = turn.calls[callIndex];
    const output = call === undefined ? [assistantMessage(turn.say, { id: `msg_example_${id}` })] : [functionCall(call.name, call.arguments, `call_example_${id}`)];
    return { id: `resp_example_${id}`, created_at: 1_767_225_600 + input.length, model: 'example-policy', output, usage: usage(600 + 80 * input.length, 30) };
  });
}

/** The user model: the task is the one whose instructions its prompt holds; the reply is the next of the task's user lines. */
function exampleUser(replies: Map<number, { input: ResponseItem[]; reply: Response }>) {
  return scriptedModel(({ input }) => {
    const prompt = textOf(input[0] as ResponseItem);
    const [taskIndex, task] = taskOf((candidate) => prompt.includes(candidate.instructions));
    const said = input.filter((item) => roleOf(item) === 'assistant').length - 1;
    const reply = modelResponse([assistantMessage(task.user[said] as string, { id: `msg_user_${taskIndex}_${said}` })], {
      id: `resp_user_${taskIndex}_${said}`,
      created_at: 1_767_225_600 + input.length,
      model: 'example-user',
      usage: usage(300 + 40 * input.length, 15),
    });
    replies.set(taskIndex, { input, reply });
    return reply;
  });
}

/** The user model's side of an episode as one rollout replay_model reads: its last call's input and reply. */
function userRollout({ input, reply }: { input: ResponseItem[]; reply: Response }): Record<string, unknown> {
  // The prompt and the opening (what the user said before the policy's first answer) are the recording's input.
  const firstPolicyMessage = input.findIndex((item) => roleOf(item) === 'user');
  return { responses_create_params: { input: input.slice(0, firstPolicyMessage) }, response: { ...reply, output: [...input.slice(firstPolicyMessage), ...reply.output] } };
}

const toJsonl = (rows: readonly unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

async function main(): Promise<void> {
  const replies = new Map<number, { input: ResponseItem[]; reply: Response }>();
  const gym = await startInProcessGym({
    overrides: [
      `+config_paths=[${CONFIG_PATH}]`,
      '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}',
      '++user_model={responses_api_models: {scripted: {entrypoint: app.ts}}}',
    ],
    definitions: { policy_model: examplePolicy().definition, user_model: exampleUser(replies).definition },
  });
  const rows = exampleRows();
  const rollouts: Record<string, any>[] = [];
  try {
    for (const row of rows) rollouts.push(await callServer(gym, AGENT, '/run', row));
  } finally {
    await gym.close();
  }
  writeFileSync(PATHS.example, toJsonl(rows));
  writeFileSync(PATHS.rollouts, toJsonl(rollouts));
  writeFileSync(PATHS.userRollouts, toJsonl(EXAMPLE_TASKS.map((_task, index) => userRollout(replies.get(index) as { input: ResponseItem[]; reply: Response }))));
  process.stdout.write(`wrote ${Object.values(PATHS).join(', ')}; rewards ${rollouts.map((rollout) => rollout.reward).join(', ')}; stop reasons ${rollouts.map((rollout) => rollout.episode.stop_reason).join(', ')}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
