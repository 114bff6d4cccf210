/**
 * A synthetic office database with upstream's schema, sizes and value formats (500 emails, 300 events,
 * 1,000 visits, 300 tasks, 200 customers, a 20-person directory), generated from a seed. The same seed
 * always gives the same files. The environment ships the database for seed 42 in `csv_data/`; regenerate
 * it with
 *
 *   npx tsx resources_servers/workplace_assistant/database/generate.ts --seed 42 --output resources_servers/workplace_assistant/csv_data
 *
 * The company's user is Jordan (the assistant's owner); "now" is Thursday 2023-11-30 23:59, as upstream.
 * Formats follow upstream's files, quirks included: 8-digit ids in shuffled order, email bodies with
 * literal `\n` sequences, CRM dates with a `23:59:00` time, empty phone numbers and notes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SeededRandom as Random } from 'ngym';
import { writeCsv } from './csv.ts';
import { DIRECTORY_FILE, TABLE_FILES } from './office.ts';

export const DEFAULT_SEED = 42;
export const COMPANY_DOMAIN = 'meridian.com';

const EMPLOYEES = [
  'amara.okafor', 'benjamin.hughes', 'camila.reyes', 'daniel.kowalski', 'elena.petrova', 'farid.haddad', 'grace.lim', 'hiroshi.tanaka',
  'ines.moreau', 'jamal.wright', 'karin.nilsson', 'lucas.ferreira', 'maya.patel', 'nikolai.volkov', 'olivia.bennett', 'priya.raman',
  'quentin.dubois', 'rosa.martinez', 'sofia.lindqvist', 'tomas.novak',
];

const EVENT_NAMES = [
  'sync up', 'daily standup', 'process review', '1:1 with manager', 'design review', 'sprint planning', 'retrospective', 'code review session',
  'Quarterly Sales Review', 'Annual Budget Planning Session', 'Product Roadmap Discussion', 'Customer Feedback Review', 'Marketing Strategy Meeting',
  'Team Building Workshop', 'Data Security and Compliance Training', 'Vendor Negotiation Call', 'Hiring Committee Meeting', 'All Hands Meeting',
  'Release Readiness Review', 'Onboarding Session', 'Performance Review', 'Board Meeting Prep', 'Partner Integration Kickoff',
  'Analytics Deep Dive', 'Support Escalation Review', 'Architecture Review Board', 'Leadership Offsite Planning', 'Pricing Committee',
];

const TASK_TEMPLATES: Record<string, string[]> = {
  'Back end': [
    'Add authentication for {feature}', 'Optimize database queries for {feature}', 'Fix bug in {feature} API', 'Add rate limiting to {feature}',
    'Write integration tests for {feature}', 'Migrate {feature} to new schema', 'Update {library} to latest version', 'Add caching layer for {feature}',
  ],
  'Front end': [
    'Add animation to {component}', 'Fix alignment issue in {page}', 'Implement responsive design for {page}', 'Improve accessibility of {component}',
    'Add dark mode to {page}', 'Fix flicker in {component}', 'Add form validation to {page}',
  ],
  Design: [
    'Create wireframe for {page}', 'Design mockup for {component}', 'Update style guide for {component}', 'Run usability test for {page}',
    'Design icons for {page}',
  ],
};
const FEATURES = ['payment gateway', 'email notification', 'report generation', 'user profile', 'search service', 'file upload', 'billing export', 'audit log'];
const LIBRARIES = ['Flask', 'Django', 'SQLAlchemy', 'Celery', 'PostgreSQL driver', 'Redis client'];
const COMPONENTS = ['carousel', 'navigation bar', 'checkout button', 'sidebar', 'date picker', 'pricing table', 'login modal'];
const PAGES = ['homepage', 'settings page', 'dashboard', 'signup page', 'product page', 'help center'];
const LISTS = ['Backlog', 'In Progress', 'In Review', 'Completed'];

const FIRST_NAMES = [
  'Alex', 'Blake', 'Casey', 'Dakota', 'Emerson', 'Finley', 'Harper', 'Jesse', 'Kai', 'Logan', 'Morgan', 'Noel', 'Parker', 'Quinn', 'Reese',
  'Riley', 'Rowan', 'Sage', 'Skyler', 'Taylor',
];
const LAST_NAMES = ['Adams', 'Brooks', 'Carter', 'Diaz', 'Ellis', 'Foster', 'Gray', 'Hayes', 'Irwin', 'Jensen', 'Keller', 'Lopez', 'Mills', 'Nash', 'Owens', 'Price'];
const CUSTOMER_COMPANIES = ['brightpath', 'cobaltworks', 'evergreensoft', 'helixmedia', 'ironclad', 'lumenhealth', 'northstarlogistics', 'quantaforge', 'redwoodfoods', 'solaris', 'tidewater', 'vertexbio'];
const PRODUCTS = ['Software', 'Hardware', 'Services', 'Consulting', 'Training'];
const STATUSES = ['Qualified', 'Won', 'Lost', 'Lead', 'Proposal'];
const CONTACT_NOTES = ['Had a call.', 'Sent an email.', 'Saw the demo.', 'Met in person.', 'Sent a proposal.', 'Followed up on pricing.'];
const TRAFFIC_SOURCES = ['direct', 'direct', 'referral', 'search engine', 'search engine', 'search engine', 'social media'];

const pad = (value: number, width = 2) => String(value).padStart(width, '0');
const id = (value: number) => pad(value, 8);
const address = (person: string) => `${person}@${COMPANY_DOMAIN}`;
const firstName = (person: string) => (person.split('.')[0] as string).replace(/^./, (letter) => letter.toUpperCase());

const DAY_MS = 86_400_000;
function dateOf(millis: number): string {
  const date = new Date(millis);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}
function dateTimeOf(millis: number): string {
  const date = new Date(millis);
  return `${dateOf(millis)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}
/** Distinct values drawn from [min, max], in ascending order. */
function distinctSorted(random: Random, count: number, min: number, max: number): number[] {
  const values = new Set<number>();
  while (values.size < count) values.add(random.int(min, max));
  return [...values].sort((a, b) => a - b);
}

function fill(template: string, random: Random): string {
  return template
    .replace('{feature}', random.pick(FEATURES))
    .replace('{library}', random.pick(LIBRARIES))
    .replace('{component}', random.pick(COMPONENTS))
    .replace('{page}', random.pick(PAGES));
}

function taskNames(random: Random, count: number): { name: string; board: string }[] {
  const seen = new Set<string>();
  const tasks: { name: string; board: string }[] = [];
  while (tasks.length < count) {
    const board = random.pick(Object.keys(TASK_TEMPLATES));
    const name = fill(random.pick(TASK_TEMPLATES[board] as string[]), random);
    // Names repeat across boards upstream too, but keep them mostly distinct so tasks can be found by name.
    if (seen.has(name) && random.chance(0.8)) continue;
    seen.add(name);
    tasks.push({ name, board });
  }
  return tasks;
}

/** Email bodies hold the two characters `\` `n` where a line break would be, as upstream's file does. */
function emailBody(lines: string[]): string {
  return lines.join('\\n');
}

function generateEmails(random: Random, tasks: { name: string }[]): string[][] {
  const start = Date.UTC(2023, 9, 1, 8, 0, 0);
  const end = Date.UTC(2023, 10, 30, 18, 0, 0);
  const times = distinctSorted(random, 500, start / 1000, end / 1000).map((seconds) => dateTimeOf(seconds * 1000));
  const ids = random.shuffled(Array.from({ length: 500 }, (_, index) => index));
  return times.map((time, index) => {
    const sender = random.pick(EMPLOYEES);
    const name = firstName(sender);
    const greeting = random.pick(['Jordan,', 'Hi Jordan,', 'Hey Jordan,', 'Dear Jordan,']);
    const closing = random.pick(['Best,', 'Thanks,', 'Regards,', 'Cheers,']);
    const kind = random.int(0, 4);
    let subject: string;
    let text: string;
    if (kind <= 1) {
      const task = random.pick(tasks).name;
      subject = `Task Update on ${task}`;
      text = random.pick([
        `Completed task '${task}' ahead of schedule. Please review and let me know if any tweaks are needed.`,
        `Starting on '${task}' today. Any preliminary thoughts or resources you recommend before I dive in?`,
        `Regarding task '${task}', I've made good progress but hit a snag with a dependency. Could use a quick brainstorm.`,
        `Quick status on '${task}': about halfway done, on track for the due date.`,
      ]);
    } else if (kind === 2) {
      const event = random.pick(EVENT_NAMES.slice(8));
      subject = random.pick([`Update on ${event}`, `Agenda for ${event}`, `Reminder: ${event}`]);
      text = random.pick([
        `Sharing a few notes ahead of the ${event}. Let me know if you want to add anything to the agenda.`,
        `Encountered a few challenges while preparing the ${event}. Could use your advice.`,
        `The ${event} is confirmed. I've attached the materials we discussed.`,
      ]);
    } else if (kind === 3) {
      const customer = `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`;
      subject = `Follow-up with ${customer}`;
      text = random.pick([
        `I spoke with ${customer} today. They are interested in a proposal and asked for pricing details.`,
        `${customer} hasn't replied to our last two emails. Should we move them to lost?`,
        `${customer} signed the contract this morning. Great work everyone!`,
      ]);
    } else {
      const topic = random.pick(['the Q4 roadmap', 'the hiring plan', 'the new expense policy', 'the budget forecast', 'the customer survey']);
      subject = `Request for feedback on ${topic}`;
      text = `Could you take a look at ${topic} and send me your comments by Friday?`;
    }
    return [id(ids[index] as number), 'inbox', address(sender), subject, time, emailBody([greeting, '', text, '', closing, name])];
  });
}

function generateCalendarEvents(random: Random): string[][] {
  const first = Date.UTC(2023, 7, 1);
  const slots: number[] = [];
  for (let day = 0; day < 152; day++) {
    const midnight = first + day * DAY_MS;
    const weekday = new Date(midnight).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    for (let half = 18; half <= 33; half++) slots.push(midnight + half * 1_800_000); // 09:00 to 16:30
  }
  const chosen = random.shuffled(slots).slice(0, 300).sort((a, b) => a - b);
  const ids = random.shuffled(Array.from({ length: 300 }, (_, index) => index));
  return chosen.map((start, index) => {
    const minutesLeft = (Date.UTC(2023, 0, 1, 18) - Date.UTC(2023, 0, 1, new Date(start).getUTCHours(), new Date(start).getUTCMinutes())) / 60_000;
    const duration = random.pick([30, 30, 60, 60, 90].filter((minutes) => minutes <= minutesLeft));
    return [id(ids[index] as number), random.pick(EVENT_NAMES), address(random.pick(EMPLOYEES)), dateTimeOf(start), String(duration)];
  });
}

function generateAnalytics(random: Random): string[][] {
  const visitors = distinctSorted(random, 400, 0, 9999).map((visitor) => pad(visitor, 4));
  const first = Date.UTC(2023, 7, 1);
  return Array.from({ length: 1000 }, () => {
    const pageViews = random.int(1, 20);
    const engaged = pageViews >= 5 ? random.chance(0.7) : random.chance(0.15);
    return [
      dateOf(first + random.int(0, 121) * DAY_MS),
      random.pick(visitors),
      String(pageViews),
      String(random.int(1, 60)),
      random.pick(TRAFFIC_SOURCES),
      engaged ? 'True' : 'False',
    ];
  });
}

function generateProjectTasks(random: Random, tasks: { name: string; board: string }[], team: string[]): string[][] {
  const ids = random.shuffled(Array.from({ length: tasks.length }, (_, index) => index));
  const first = Date.UTC(2023, 10, 1);
  return tasks.map((task, index) => [
    id(ids[index] as number),
    task.name,
    address(random.pick(team)),
    random.pick([...LISTS, 'Backlog', 'In Progress']),
    dateOf(first + random.int(0, 91) * DAY_MS),
    task.board,
  ]);
}

function generateCustomers(random: Random, salesTeam: string[]): string[][] {
  const names = random.shuffled(FIRST_NAMES.flatMap((first) => LAST_NAMES.map((last) => `${first} ${last}`))).slice(0, 200);
  const ids = random.shuffled(Array.from({ length: 200 }, (_, index) => index));
  const first = Date.UTC(2023, 8, 1, 23, 59);
  return names.map((name, index) => {
    const lastContact = first + random.int(0, 90) * DAY_MS;
    const notes = Array.from({ length: random.pick([0, 1, 1, 2, 3]) }, () => {
      const day = lastContact - random.int(0, 40) * DAY_MS;
      return `${dateOf(day)}: ${random.pick(CONTACT_NOTES)} `;
    }).join('');
    const phone = random.chance(0.5) ? `${random.int(201, 989)}-${random.int(200, 999)}-${pad(random.int(0, 9999), 4)}` : '';
    return [
      id(ids[index] as number),
      address(random.pick(salesTeam)),
      name,
      `${name.toLowerCase().replace(' ', '.')}@${random.pick(CUSTOMER_COMPANIES)}.com`,
      phone,
      dateTimeOf(lastContact),
      random.pick(PRODUCTS),
      random.pick(STATUSES),
      dateTimeOf(lastContact + random.int(7, 30) * DAY_MS),
      notes,
    ];
  });
}

/** The database's files (name to CSV text) for a seed. */
export function generateOfficeDatabase(seed = DEFAULT_SEED): Record<string, string> {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const random = new Random(seed);
  const people = random.shuffled(EMPLOYEES);
  const projectTeam = people.slice(0, 10);
  const salesTeam = people.slice(10, 18);
  const tasks = taskNames(random, 300);
  return {
    [TABLE_FILES.emails.file]: writeCsv(TABLE_FILES.emails.columns, generateEmails(random, tasks)),
    [TABLE_FILES.calendarEvents.file]: writeCsv(TABLE_FILES.calendarEvents.columns, generateCalendarEvents(random)),
    [TABLE_FILES.analytics.file]: writeCsv(TABLE_FILES.analytics.columns, generateAnalytics(random)),
    [TABLE_FILES.projectTasks.file]: writeCsv(TABLE_FILES.projectTasks.columns, generateProjectTasks(random, tasks, projectTeam)),
    [TABLE_FILES.customers.file]: writeCsv(TABLE_FILES.customers.columns, generateCustomers(random, salesTeam)),
    [DIRECTORY_FILE]: writeCsv(null, EMPLOYEES.map((person) => [address(person)])),
  };
}

export function writeOfficeDatabase(directory: string, seed = DEFAULT_SEED): void {
  mkdirSync(directory, { recursive: true });
  for (const [file, text] of Object.entries(generateOfficeDatabase(seed))) writeFileSync(join(directory, file), text);
}

function main(argv: string[]): void {
  const value = (flag: string) => {
    const index = argv.indexOf(flag);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const output = value('--output');
  const seed = Number(value('--seed') ?? DEFAULT_SEED);
  if (output === undefined || !Number.isSafeInteger(seed)) {
    process.stderr.write('usage: generate.ts --output <directory> [--seed <integer, default 42>]\n');
    process.exit(2);
  }
  writeOfficeDatabase(resolve(output), seed);
  process.stdout.write(`wrote the office database for seed ${seed} to ${resolve(output)}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
