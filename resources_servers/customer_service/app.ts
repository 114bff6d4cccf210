/**
 * customer_service: a shop's support desk for multi-turn episodes with a simulated user
 * (responses_api_agents/simulated_user_agent). The user has a hidden goal (the row's `simulated_user`); the
 * policy looks customers and orders up and changes addresses, cancels or refunds under the shop's rules (the
 * tools refuse what the rules forbid). Verify scores the whole episode by the final database (the orders in
 * `expected_orders` have those fields, every other order is unchanged) and by what the user was told (each of
 * `required_information` appears in the policy's messages). `/goal_status` answers the same check while the
 * episode runs, so the agent can end it once the goal is met (its `goal_check_path`).
 */
import {
  assistantMessages,
  defineResourcesServer,
  messageTexts,
  readJsonBody,
  ResponseItem,
  sessionIdOf,
  SessionStore,
  validateBody,
} from 'ngym';
import * as z from 'zod';
import { type Database, initialDatabase } from './database.ts';

const OrderFields = z.strictObject({
  status: z.enum(['processing', 'shipped', 'delivered', 'cancelled', 'refunded']).optional(),
  shipping_address: z.string().optional(),
  refund_amount: z.number().nullable().optional(),
});
const TaskFields = z.looseObject({
  /** The final fields of the orders the user's goal changes; every other order must end as it started. */
  expected_orders: z.record(z.string(), OrderFields),
  /** What the user must have been told (case-insensitive substrings of the policy's messages). */
  required_information: z.array(z.string().min(1)),
});
const EpisodeCheck = TaskFields.extend({ response: z.looseObject({ output: z.array(ResponseItem) }) });

type Task = z.infer<typeof TaskFields>;

interface Evaluation {
  reward: number;
  database_correct: boolean;
  user_informed: boolean;
  /** Orders whose final state differs from what the task expects, by id. */
  wrong_orders: string[];
  missing_information: string[];
}

function evaluate(task: Task, output: readonly ResponseItem[], database: Database): Evaluation {
  const initial = new Map(initialDatabase().orders.map((order) => [order.order_id, order]));
  const wrongOrders = database.orders
    .filter((order) => {
      const expected = task.expected_orders[order.order_id];
      // An order the goal changes is checked on the expected fields (the policy words the note); any other must not change.
      if (expected !== undefined) return Object.entries(expected).some(([key, value]) => order[key as keyof typeof order] !== value);
      return JSON.stringify(order) !== JSON.stringify(initial.get(order.order_id));
    })
    .map((order) => order.order_id);
  const told = assistantMessages(output)
    .flatMap((message) => messageTexts(message))
    .join('\n')
    .toLowerCase();
  const missing = task.required_information.filter((text) => !told.includes(text.toLowerCase()));
  const databaseCorrect = wrongOrders.length === 0;
  const userInformed = missing.length === 0;
  return { reward: databaseCorrect && userInformed ? 1.0 : 0.0, database_correct: databaseCorrect, user_informed: userInformed, wrong_orders: wrongOrders, missing_information: missing };
}

const refused = (error: string) => ({ error });

export default defineResourcesServer({
  className: 'CustomerServiceResourcesServer',
  setup: () => ({ databases: new SessionStore<Database>() }),
  seedSession: (_request, { sessionId, state }) => {
    state.databases.set(sessionId, initialDatabase());
    return {};
  },
  tools: {
    find_customer_by_email: {
      description: "Look a customer up by email address. Returns the customer's id and name.",
      parameters: z.strictObject({ email: z.string() }),
      handler: ({ email }, { sessionId, state }) => {
        const customer = state.databases.getOrCreate(sessionId, initialDatabase).customers.find((entry) => entry.email.toLowerCase() === email.trim().toLowerCase());
        return customer ?? refused(`No customer has the email ${email}.`);
      },
    },
    list_customer_orders: {
      description: "List a customer's orders with their status and total.",
      parameters: z.strictObject({ customer_id: z.string() }),
      handler: ({ customer_id }, { sessionId, state }) => ({
        orders: state.databases
          .getOrCreate(sessionId, initialDatabase)
          .orders.filter((order) => order.customer_id === customer_id)
          .map(({ order_id, status, total }) => ({ order_id, status, total })),
      }),
    },
    get_order_details: {
      description: 'All details of an order: customer, status, items, total, shipping address, tracking number, refund.',
      parameters: z.strictObject({ order_id: z.string() }),
      handler: ({ order_id }, { sessionId, state }) => state.databases.getOrCreate(sessionId, initialDatabase).orders.find((order) => order.order_id === order_id) ?? refused(`No order ${order_id}.`),
    },
    change_shipping_address: {
      description: 'Change the shipping address of an order that has not shipped yet (status processing).',
      parameters: z.strictObject({ order_id: z.string(), new_address: z.string().min(1) }),
      handler: ({ order_id, new_address }, { sessionId, state }) => {
        const order = state.databases.getOrCreate(sessionId, initialDatabase).orders.find((entry) => entry.order_id === order_id);
        if (order === undefined) return refused(`No order ${order_id}.`);
        if (order.status !== 'processing') return refused(`Order ${order_id} is ${order.status}; only orders still processing can change address.`);
        order.shipping_address = new_address;
        return { order_id, shipping_address: new_address };
      },
    },
    cancel_order: {
      description: 'Cancel an order that has not shipped yet (status processing); the customer is refunded the whole total.',
      parameters: z.strictObject({ order_id: z.string(), reason: z.string().min(1) }),
      handler: ({ order_id, reason }, { sessionId, state }) => {
        const order = state.databases.getOrCreate(sessionId, initialDatabase).orders.find((entry) => entry.order_id === order_id);
        if (order === undefined) return refused(`No order ${order_id}.`);
        if (order.status !== 'processing') return refused(`Order ${order_id} is ${order.status}; only orders still processing can be cancelled.`);
        Object.assign(order, { status: 'cancelled', refund_amount: order.total, note: reason });
        return { order_id, status: order.status, refund_amount: order.total };
      },
    },
    refund_order: {
      description: 'Refund a delivered order (status delivered) in full, for a damaged or unwanted item.',
      parameters: z.strictObject({ order_id: z.string(), reason: z.string().min(1) }),
      handler: ({ order_id, reason }, { sessionId, state }) => {
        const order = state.databases.getOrCreate(sessionId, initialDatabase).orders.find((entry) => entry.order_id === order_id);
        if (order === undefined) return refused(`No order ${order_id}.`);
        if (order.status !== 'delivered') return refused(`Order ${order_id} is ${order.status}; only delivered orders can be refunded.`);
        Object.assign(order, { status: 'refunded', refund_amount: order.total, note: reason });
        return { order_id, status: order.status, refund_amount: order.total };
      },
    },
  },
  verifyRequest: TaskFields,
  verify: (request, { sessionId, state }) => ({ ...evaluate(request, request.response.output, state.databases.getOrCreate(sessionId, initialDatabase)) }),
  routes: (app, { state }) => {
    app.post('/goal_status', async (http) => {
      const body = validateBody<z.infer<typeof EpisodeCheck>>(EpisodeCheck, await readJsonBody(http));
      const evaluation = evaluate(body, body.response.output, state.databases.getOrCreate(sessionIdOf(http), initialDatabase));
      return http.json({ goal_met: evaluation.reward === 1.0, ...evaluation });
    });
  },
});
