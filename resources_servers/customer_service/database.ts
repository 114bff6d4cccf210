/**
 * The shop's database: a few customers and their orders. Every rollout gets its own copy (seed_session), the
 * tools change it, and verify compares the copy's final orders with the task's expected changes.
 */
type OrderStatus = 'processing' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';

interface Customer {
  customer_id: string;
  name: string;
  email: string;
}

interface Order {
  order_id: string;
  customer_id: string;
  status: OrderStatus;
  items: { name: string; price: number }[];
  total: number;
  shipping_address: string;
  tracking_number: string | null;
  refund_amount: number | null;
  /** Why it was cancelled or refunded, as the policy wrote it. */
  note: string | null;
}

export interface Database {
  customers: Customer[];
  orders: Order[];
}

const CUSTOMERS: Customer[] = [
  { customer_id: 'C001', name: 'Ana Silva', email: 'ana.silva@example.com' },
  { customer_id: 'C002', name: 'Ben Okafor', email: 'ben.okafor@example.com' },
  { customer_id: 'C003', name: 'Chloe Martin', email: 'chloe.martin@example.com' },
  { customer_id: 'C004', name: 'Dev Patel', email: 'dev.patel@example.com' },
];

const order = (fields: Pick<Order, 'order_id' | 'customer_id' | 'status' | 'items' | 'shipping_address'> & Partial<Order>): Order => ({
  tracking_number: null,
  refund_amount: null,
  note: null,
  total: Math.round(fields.items.reduce((sum, item) => sum + item.price, 0) * 100) / 100,
  ...fields,
});

const ORDERS: Order[] = [
  order({ order_id: 'W1001', customer_id: 'C001', status: 'processing', items: [{ name: 'Trail running shoes', price: 89 }], shipping_address: '4 Rua Augusta, 1100-053 Lisbon' }),
  order({
    order_id: 'W1002',
    customer_id: 'C002',
    status: 'delivered',
    items: [
      { name: 'Ceramic mug set', price: 30 },
      { name: 'Tea infuser', price: 15 },
    ],
    shipping_address: '17 Allen Avenue, Ikeja, Lagos',
    tracking_number: 'TRK-55410',
  }),
  order({
    order_id: 'W1003',
    customer_id: 'C003',
    status: 'shipped',
    items: [{ name: 'Wool blanket', price: 64.9 }],
    shipping_address: '22 Rue Oberkampf, 75011 Paris',
    tracking_number: 'TRK-88231',
  }),
  order({ order_id: 'W1004', customer_id: 'C004', status: 'processing', items: [{ name: 'Desk lamp', price: 32.5 }], shipping_address: '8 MG Road, Bengaluru 560001' }),
  order({
    order_id: 'W1005',
    customer_id: 'C001',
    status: 'shipped',
    items: [{ name: 'Rain jacket', price: 120 }],
    shipping_address: '4 Rua Augusta, 1100-053 Lisbon',
    tracking_number: 'TRK-90017',
  }),
];

export function initialDatabase(): Database {
  return structuredClone({ customers: CUSTOMERS, orders: ORDERS });
}
