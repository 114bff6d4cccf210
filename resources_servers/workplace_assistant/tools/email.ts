/** Email tools (upstream `EmailTool`): read, search, send, delete, forward and reply. */
import {
  pythonContains,
  pythonLower,
  pythonSplit,
  pythonStr,
  pythonTruthy,
  type PythonValue,
} from 'ngym/python-compat';
import type { Office } from '../database/office.ts';
import type { Row } from '../database/table.ts';
import { asPython, nextId, paginate } from './pandas.ts';
import { deleteRecord, findRecord, type RecordKind, recordField } from './records.ts';
import { parseTimestamp, timestampDate, timestampOrder } from './timestamp.ts';
import { type Arguments, type OfficeTool, officeTool, returningErrors } from './tool.ts';

/** The simulated "now" (Thursday): every email sent gets this time. */
const CURRENT_TIME = '2023-11-30 23:59:00';

const EMAILS: RecordKind = { table: 'emails', idColumn: 'email_id', noun: 'Email' };
const emailId = { type: 'string', description: 'Unique ID of the email' } as const;

function sendEmail(office: Office, recipient: PythonValue, subject: PythonValue, body: PythonValue): string {
  if (!pythonTruthy(recipient) || !pythonTruthy(subject) || !pythonTruthy(body)) return 'Recipient, subject, or body not provided.';
  if (!pythonContains(recipient, '@') || !pythonContains(recipient, '.')) return 'Invalid recipient email address.';
  return returningErrors('Error sending email', () => {
    const address = pythonLower(recipient);
    const id = office.emails.length > 0 ? String(nextId(office.emails, 'email_id')) : '1';
    office.emails = office.emails.appendRenumbered({
      email_id: id,
      'inbox/outbox': 'outbox',
      'sender/recipient': address,
      subject,
      sent_datetime: CURRENT_TIME,
      body,
    });
    return 'Email sent successfully.';
  }) as string;
}

/** Forward and reply: send, then report success unless sending failed (its message passes through). */
function sendDerived(office: Office, recipient: PythonValue, subject: string, body: PythonValue, done: string): string {
  const result = sendEmail(office, recipient, subject, body);
  return result.includes('Error') || result.includes('Invalid') ? result : done;
}

/** Rows are immutable and shared by every session, so the lowercased text a search scans is kept per row. */
const searchedText = new WeakMap<Row, string>();

function searchEmails(office: Office, args: Arguments<'query' | 'date_min' | 'date_max' | 'page' | 'page_size'>): PythonValue {
  const words = pythonSplit(pythonLower(args.query));
  const table = office.emails;
  const [subject, body, sender, sent] = ['subject', 'body', 'sender/recipient', 'sent_datetime'].map((column) => table.columnIndex(column)) as [
    number,
    number,
    number,
    number,
  ];
  const textOf = (row: Row) => {
    let text = searchedText.get(row);
    if (text === undefined) {
      text = `${pythonStr(asPython(row[subject]))} ${pythonStr(asPython(row[body]))} ${pythonStr(asPython(row[sender]))}`.toLowerCase();
      searchedText.set(row, text);
    }
    return text;
  };
  const matching = table.rows.filter((row) => {
    const text = textOf(row);
    return words.every((word) => text.includes(word));
  });
  // Latest first; equal times keep table order.
  const keyed = matching.map((row) => ({ row, time: parseTimestamp(row[sent]) }));
  keyed.sort((a, b) => timestampOrder(a.time, b.time));
  let emails = keyed.map(({ row }) => table.record(row));
  for (const [bound, keep] of [
    [args.date_min, '>='],
    [args.date_max, '<='],
  ] as const) {
    if (!pythonTruthy(bound) || emails.length === 0) continue;
    const limit = timestampDate(parseTimestamp(bound));
    emails = emails.filter((email) => {
      const date = timestampDate(parseTimestamp(email.sent_datetime));
      return keep === '>=' ? date >= limit : date <= limit;
    });
  }
  const page = paginate(emails, args.page, args.page_size);
  if (emails.length === 0) return 'No emails found.';
  return page.answer('emails');
}

export const emailTools: OfficeTool[] = [
  officeTool({
    name: 'email_get_email_information_by_id',
    pythonMethod: 'EmailTool.get_email_information_by_id',
    description: 'Retrieves specific details of an email by its ID.',
    parameters: {
      email_id: emailId,
      field: {
        type: 'string',
        description: "Specific field to return. Available fields: 'email_id', 'inbox/outbox', 'sender/recipient', 'subject', 'sent_datetime', 'body'",
      },
    },
    required: ['email_id', 'field'],
    run: ({ email_id, field }, office) => {
      if (!pythonTruthy(email_id)) return 'Email ID not provided.';
      if (!pythonTruthy(field)) return 'Field not provided.';
      return returningErrors('Error retrieving email information', () =>
        recordField(office, EMAILS, email_id, field, (email) => `Field '${pythonStr(field)}' not found. Available fields: ${Object.keys(email).join(', ')}`),
      );
    },
  }),
  officeTool({
    name: 'email_search_emails',
    pythonMethod: 'EmailTool.search_emails',
    description:
      'Searches for emails matching the given query across subject, body, or sender fields. The function matches an email if all words in the query appear in any of these fields.',
    parameters: {
      query: { type: 'string', description: 'Search query, matching terms in subject, body, or sender/recipient fields', default: '' },
      date_min: { type: 'string', description: "Lower date limit for the email's sent date (inclusive). Format: YYYY-MM-DD" },
      date_max: { type: 'string', description: "Upper date limit for the email's sent date (inclusive). Format: YYYY-MM-DD" },
      page: { type: 'integer', description: 'Page number of results to return', default: 1 },
      page_size: { type: 'integer', description: 'Number of emails per page', default: 5 },
    },
    required: [],
    run: (args, office) => returningErrors('Error searching emails', () => searchEmails(office, args)),
  }),
  officeTool({
    name: 'email_send_email',
    pythonMethod: 'EmailTool.send_email',
    description: 'Sends an email to the specified recipient.',
    parameters: {
      recipient: { type: 'string', description: 'Email address of the recipient' },
      subject: { type: 'string', description: 'Subject line of the email' },
      body: { type: 'string', description: 'Body content of the email' },
    },
    required: ['recipient', 'subject', 'body'],
    run: ({ recipient, subject, body }, office) => sendEmail(office, recipient, subject, body),
  }),
  officeTool({
    name: 'email_delete_email',
    pythonMethod: 'EmailTool.delete_email',
    description: 'Deletes an email by its ID.',
    parameters: { email_id: { type: 'string', description: 'Unique ID of the email to be deleted' } },
    required: ['email_id'],
    run: ({ email_id }, office) => {
      if (!pythonTruthy(email_id)) return 'Email ID not provided.';
      return returningErrors('Error deleting email', () => deleteRecord(office, EMAILS, email_id));
    },
  }),
  officeTool({
    name: 'email_forward_email',
    pythonMethod: 'EmailTool.forward_email',
    description: 'Forwards an email to the specified recipient.',
    parameters: {
      email_id: { type: 'string', description: 'Unique ID of the email to be forwarded' },
      recipient: { type: 'string', description: 'Email address of the recipient' },
    },
    required: ['email_id', 'recipient'],
    run: ({ email_id, recipient }, office) => {
      if (!pythonTruthy(email_id) || !pythonTruthy(recipient)) return 'Email ID or recipient not provided.';
      if (!pythonContains(recipient, '@') || !pythonContains(recipient, '.')) return 'Invalid recipient email address.';
      return returningErrors('Error forwarding email', () => {
        const email = findRecord(office, EMAILS, email_id);
        if (email === undefined) return 'Email not found.';
        const address = pythonLower(recipient);
        const subject = `FW: ${pythonStr(asPython(email.subject))}`;
        return sendDerived(office, address, subject, asPython(email.body), 'Email forwarded successfully.');
      });
    },
  }),
  officeTool({
    name: 'email_reply_email',
    pythonMethod: 'EmailTool.reply_email',
    description: 'Replies to an email by its ID.',
    parameters: {
      email_id: { type: 'string', description: 'Unique ID of the email to be replied' },
      body: { type: 'string', description: 'Body content of the email' },
    },
    required: ['email_id', 'body'],
    run: ({ email_id, body }, office) => {
      if (!pythonTruthy(email_id) || !pythonTruthy(body)) return 'Email ID or body not provided.';
      return returningErrors('Error replying to email', () => {
        const email = findRecord(office, EMAILS, email_id);
        if (email === undefined) return 'Email not found.';
        const subject = `RE: ${pythonStr(asPython(email.subject))}`;
        return sendDerived(office, asPython(email['sender/recipient']), subject, body, 'Email replied successfully.');
      });
    },
  }),
];
