/** CRM tools (upstream `CustomerRelationshipManagerTool`): search, update, add and delete customers. */
import { pythonCompare, pythonContains, pythonLower, pythonTruthy, type PythonValue } from 'ngym/python-compat';
import type { Office } from '../database/office.ts';
import type { Row, Table } from '../database/table.ts';
import { filterContains, nextId, paginate, zfill } from './pandas.ts';
import { deleteRecord, type RecordKind, updateRecord } from './records.ts';
import { type Arguments, type OfficeTool, officeTool } from './tool.ts';

const STATUSES = ['Qualified', 'Won', 'Lost', 'Lead', 'Proposal'];
const PRODUCTS = ['Software', 'Hardware', 'Services', 'Consulting', 'Training'];
const INVALID_FIELD =
  "Field not valid. Please choose from: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'";
const TEXT_FILTERS = ['customer_name', 'customer_email', 'product_interest', 'status', 'assigned_to_email'] as const;
const DATE_FILTERS = [
  ['last_contact_date_min', 'last_contact_date', '>='],
  ['last_contact_date_max', 'last_contact_date', '<='],
  ['follow_up_by_min', 'follow_up_by', '>='],
  ['follow_up_by_max', 'follow_up_by', '<='],
] as const;

const CUSTOMERS: RecordKind = { table: 'customers', idColumn: 'customer_id', noun: 'Customer' };
const customerId = { type: 'string', description: 'ID of the customer' } as const;
const customerName = { type: 'string', description: 'Name of the customer' } as const;
const customerEmail = { type: 'string', description: 'Email address of the customer' } as const;
const assignee = { type: 'string', description: 'Email address of the person assigned to the customer' } as const;

/** `table[table[column] >= bound]`: string comparison, NaN cells excluded. */
function filterCompare(table: Table, column: string, operator: '>=' | '<=', bound: PythonValue): Table {
  const index = table.columnIndex(column);
  return table.filter((row: Row) => row[index] !== null && pythonCompare(row[index], operator, bound));
}

function searchCustomers(office: Office, args: Arguments<(typeof TEXT_FILTERS)[number] | (typeof DATE_FILTERS)[number][0] | 'page' | 'page_size'>): PythonValue {
  let customers = office.customers;
  const filters = [...TEXT_FILTERS, ...DATE_FILTERS.map(([name]) => name)];
  if (!filters.some((name) => pythonTruthy(args[name]))) return 'No search parameters provided. Please provide at least one parameter.';
  for (const column of TEXT_FILTERS) {
    if (pythonTruthy(args[column])) customers = filterContains(customers, column, args[column]);
  }
  for (const [name, column, operator] of DATE_FILTERS) {
    if (pythonTruthy(args[name])) customers = filterCompare(customers, column, operator, args[name]);
  }
  const records = customers.records();
  const page = paginate(records, args.page, args.page_size);
  if (records.length === 0) return 'No customers found.';
  return page.answer('customers');
}

export const customerRelationshipManagerTools: OfficeTool[] = [
  officeTool({
    name: 'customer_relationship_manager_search_customers',
    pythonMethod: 'CustomerRelationshipManagerTool.search_customers',
    description: 'Searches for customers based on the given parameters with pagination support.',
    parameters: {
      customer_name: customerName,
      customer_email: customerEmail,
      product_interest: { type: 'string', description: 'Product interest of the customer' },
      status: { type: 'string', description: 'Current status of the customer' },
      assigned_to_email: assignee,
      last_contact_date_min: { type: 'string', description: 'Minimum last contact date. Format: YYYY-MM-DD' },
      last_contact_date_max: { type: 'string', description: 'Maximum last contact date. Format: YYYY-MM-DD' },
      follow_up_by_min: { type: 'string', description: 'Minimum follow up date. Format: YYYY-MM-DD' },
      follow_up_by_max: { type: 'string', description: 'Maximum follow up date. Format: YYYY-MM-DD' },
      page: { type: 'integer', description: 'Page number of results to return', default: 1 },
      page_size: { type: 'integer', description: 'Number of customers per page', default: 5 },
    },
    required: [],
    run: (args, office) => searchCustomers(office, args),
  }),
  officeTool({
    name: 'customer_relationship_manager_update_customer',
    pythonMethod: 'CustomerRelationshipManagerTool.update_customer',
    description: 'Updates a customer record by ID.',
    parameters: {
      customer_id: customerId,
      field: {
        type: 'string',
        description:
          "Field to update. Available fields are: 'customer_name', 'assigned_to_email', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest', 'status', 'notes', 'follow_up_by'",
      },
      new_value: { type: 'string', description: 'New value for the field' },
    },
    required: ['customer_id', 'field', 'new_value'],
    run: ({ customer_id, field, new_value }, office) => {
      if (!pythonTruthy(customer_id) || !pythonTruthy(field) || !pythonTruthy(new_value)) return 'Customer ID, field, or new value not provided.';
      if (field === 'status' && !pythonContains(STATUSES, new_value)) {
        return "Status not valid. Please choose from: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'";
      }
      if (field === 'product_interest' && !pythonContains(PRODUCTS, new_value)) {
        return "Product interest not valid. Please choose from: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'";
      }
      const value = field === 'customer_email' || field === 'assigned_to_email' ? pythonLower(new_value) : (new_value);
      return updateRecord(office, CUSTOMERS, customer_id, field, value, INVALID_FIELD);
    },
  }),
  officeTool({
    name: 'customer_relationship_manager_add_customer',
    pythonMethod: 'CustomerRelationshipManagerTool.add_customer',
    description: 'Adds a new customer record.',
    parameters: {
      customer_name: customerName,
      assigned_to_email: assignee,
      status: { type: 'string', description: "Current status of the customer. One of: 'Qualified', 'Won', 'Lost', 'Lead', 'Proposal'" },
      customer_email: customerEmail,
      customer_phone: { type: 'string', description: 'Phone number of the customer' },
      last_contact_date: { type: 'string', description: 'The last date the customer was contacted. Format: YYYY-MM-DD' },
      product_interest: {
        type: 'string',
        description: "Product interest of the customer. One of: 'Software', 'Hardware', 'Services', 'Consulting', 'Training'",
      },
      notes: { type: 'string', description: 'Notes about the customer', default: '' },
      follow_up_by: { type: 'string', description: 'Date for the next follow up. Format: YYYY-MM-DD' },
    },
    required: ['customer_name', 'assigned_to_email', 'status'],
    run: (args, office) => {
      if (![args.customer_name, args.assigned_to_email, args.status].every(pythonTruthy)) {
        return 'Please provide all required fields: customer_name, assigned_to_email, status.';
      }
      const assignedTo = pythonLower(args.assigned_to_email);
      const email = pythonTruthy(args.customer_email) ? pythonLower(args.customer_email) : (args.customer_email);
      const id = zfill(nextId(office.customers, 'customer_id'));
      office.customers = office.customers.appendRenumbered({
        customer_id: id,
        customer_name: args.customer_name,
        customer_email: email,
        customer_phone: args.customer_phone,
        last_contact_date: args.last_contact_date,
        product_interest: args.product_interest,
        status: args.status,
        assigned_to_email: assignedTo,
        notes: args.notes,
        follow_up_by: args.follow_up_by,
      });
      return id;
    },
  }),
  officeTool({
    name: 'customer_relationship_manager_delete_customer',
    pythonMethod: 'CustomerRelationshipManagerTool.delete_customer',
    description: 'Deletes a customer record by ID.',
    parameters: { customer_id: customerId },
    required: ['customer_id'],
    run: ({ customer_id }, office) => {
      if (!pythonTruthy(customer_id)) return 'Customer ID not provided.';
      return deleteRecord(office, CUSTOMERS, customer_id);
    },
  }),
];
