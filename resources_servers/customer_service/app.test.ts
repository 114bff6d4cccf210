import { afterEach, describe, expect, it } from 'vitest';
import { assistantMessage, callServer, type InProcessGym, modelResponse, startInProcessGym } from 'ngym/testing';
import { exampleRows } from './example-data.ts';

let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

/** One session of the environment: its tools, `/verify` and `/goal_status`, with the session cookie kept. */
async function session() {
  gym = await startInProcessGym({ config: { shop: { resources_servers: { customer_service: { entrypoint: 'app.ts', domain: 'agent' } } } } });
  const { CookieJar } = await import('ngym');
  const cookies = new CookieJar();
  const post = async (path: string, body: unknown) => {
    const response = await (gym as InProcessGym).client.post('shop', path, body, { cookies });
    cookies.merge(response.cookies);
    return { status: response.status, body: response.json<Record<string, any>>() };
  };
  await post('/seed_session', {});
  return post;
}

const said = (...texts: string[]) => modelResponse(texts.map((text) => assistantMessage(text)));

describe('customer_service', () => {
  it('looks customers and orders up', async () => {
    const post = await session();
    expect((await post('/find_customer_by_email', { email: ' Ana.Silva@example.com ' })).body).toEqual({ customer_id: 'C001', name: 'Ana Silva', email: 'ana.silva@example.com' });
    expect((await post('/find_customer_by_email', { email: 'nobody@example.com' })).body).toEqual({ error: 'No customer has the email nobody@example.com.' });
    expect((await post('/list_customer_orders', { customer_id: 'C001' })).body.orders).toEqual([
      { order_id: 'W1001', status: 'processing', total: 89 },
      { order_id: 'W1005', status: 'shipped', total: 120 },
    ]);
    expect((await post('/get_order_details', { order_id: 'W1002' })).body).toMatchObject({ status: 'delivered', total: 45, tracking_number: 'TRK-55410' });
    expect((await post('/get_order_details', { orderId: 'W1002' })).status).toBe(422);
  });

  it("enforces the shop's rules: address and cancel while processing, refund once delivered", async () => {
    const post = await session();
    expect((await post('/change_shipping_address', { order_id: 'W1005', new_address: 'x' })).body).toEqual({
      error: 'Order W1005 is shipped; only orders still processing can change address.',
    });
    expect((await post('/cancel_order', { order_id: 'W1003', reason: 'late' })).body.error).toMatch(/only orders still processing can be cancelled/);
    expect((await post('/refund_order', { order_id: 'W1001', reason: 'changed my mind' })).body.error).toMatch(/only delivered orders can be refunded/);
    expect((await post('/cancel_order', { order_id: 'W1004', reason: 'cheaper elsewhere' })).body).toEqual({ order_id: 'W1004', status: 'cancelled', refund_amount: 32.5 });
    expect((await post('/cancel_order', { order_id: 'W1004', reason: 'again' })).body.error).toMatch(/W1004 is cancelled/);
    expect((await post('/refund_order', { order_id: 'W1002', reason: 'broken' })).body).toEqual({ order_id: 'W1002', status: 'refunded', refund_amount: 45 });
  });

  it('verifies by the final database and by what the user was told', async () => {
    const row = exampleRows()[0] as Record<string, any>;
    const post = await session();
    const told = said('Order W1001 will ship to 9 Avenida da Liberdade, 1250-096 Lisbon.');
    expect((await post('/verify', { ...row, response: told })).body).toMatchObject({ reward: 0, database_correct: false, user_informed: true, wrong_orders: ['W1001'] });
    expect((await post('/goal_status', { ...row, response: told })).body).toMatchObject({ goal_met: false });
    await post('/change_shipping_address', { order_id: 'W1001', new_address: '9 Avenida da Liberdade, 1250-096 Lisbon' });
    expect((await post('/goal_status', { ...row, response: said('Done.') })).body).toMatchObject({ goal_met: false, missing_information: ['9 Avenida da Liberdade'] });
    expect((await post('/verify', { ...row, response: told })).body).toMatchObject({ reward: 1, database_correct: true, user_informed: true, id: 0, category: 'change_address' });
    expect((await post('/goal_status', { ...row, response: told })).body).toMatchObject({ goal_met: true });
    // A change the goal did not ask for fails the episode, even when the asked one was made.
    await post('/cancel_order', { order_id: 'W1004', reason: 'oops' });
    expect((await post('/verify', { ...row, response: told })).body).toMatchObject({ reward: 0, wrong_orders: ['W1004'] });
  });

  it('refuses a verify without the task fields (422 naming them)', async () => {
    const post = await session();
    const answer = await post('/verify', { responses_create_params: { input: 'x' }, response: said('hi') });
    expect(answer.status).toBe(422);
    expect(answer.body.detail.map((detail: any) => detail.loc.at(-1)).sort()).toEqual(['expected_orders', 'required_information']);
    expect((await callServer(gym as InProcessGym, 'shop', '/seed_session', {})) ?? {}).toEqual({});
  });
});
