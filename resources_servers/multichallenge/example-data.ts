/**
 * multichallenge's example tasks (ours: one for each of MultiChallenge's four challenges, and one more), the final
 * answers of their example rollouts and the judge's reply to each rubric question. `data/example.jsonl` and
 * `data/example_rollouts.jsonl` are written from here:
 *
 *   npx tsx resources_servers/multichallenge/example-data.ts
 *
 * The rollouts come from running the rows through simple_agent against the real server, with one scripted model
 * as the policy (it gives each task's answer) and as the judge (the shipped config judges with the policy model;
 * it replies to each question as written below), so their rewards are the server's: 1, 0.5, 2/3, 0, 1.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assistantMessage, exampleData, scriptedModel, usage, writeExampleData } from 'ngym/testing';

export const EXAMPLE_DATA = exampleData('multichallenge');

interface Turn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

interface ExampleTask {
  topic: string;
  challenge: string;
  turns: Turn[];
  /** Each rubric question with its pass criteria and the judge's reply to it. */
  rubric: { question: string; pass_criteria: 'YES' | 'NO'; judge: string }[];
  /** The example rollout's final answer. */
  answer: string;
}

const yes = (why: string) => `${why}\n\n[[YES]]`;
const no = (why: string) => `${why}\n\n[[NO]]`;

export const EXAMPLE_TASKS: ExampleTask[] = [
  {
    topic: 'Health & Fitness',
    challenge: 'Inference Memory',
    turns: [
      { role: 'user', content: 'I signed up for a half marathon in October. Heads up: I had knee surgery nine days ago, so my physio has me on a short break.' },
      { role: 'assistant', content: 'Congratulations on signing up, and I hope the recovery goes smoothly! Let me know whenever you want help with a training plan.' },
      { role: 'user', content: 'Great. Can you give me a workout for tomorrow morning?' },
    ],
    rubric: [
      { question: 'Does the response avoid running, jumping or other high-impact leg work, given the knee surgery mentioned earlier?', pass_criteria: 'YES', judge: yes('The plan is upper-body and core work only, with an explicit note to avoid loading the knee.') },
      { question: 'Does the response connect the workout to the half marathon goal?', pass_criteria: 'YES', judge: yes('It frames the session as keeping fitness for October.') },
    ],
    answer:
      '<think>They had knee surgery nine days ago, so no running or jumping.</think>Since your knee is still healing, tomorrow is an upper-body and core day that keeps your fitness up for October:\n\n1. 10 minutes of seated arm cycling or rowing with arms only\n2. 3 x 12 push-ups against a wall\n3. 3 x 30 s dead bug\n4. 3 x 10 seated band rows\n\nCheck with your physio before adding any leg work.',
  },
  {
    topic: 'Education & Research',
    challenge: 'Instruction Retention',
    turns: [
      { role: 'system', content: 'You are a study assistant. Answer every question in exactly three bullet points.' },
      { role: 'user', content: 'What causes the seasons on Earth?' },
      { role: 'assistant', content: "- Earth's axis is tilted about 23.4 degrees.\n- The tilt changes how directly sunlight hits each hemisphere over the year.\n- More direct light means longer, warmer days: summer." },
      { role: 'user', content: 'And why is the sky blue?' },
    ],
    rubric: [
      { question: 'Is the response written as exactly three bullet points, as the system prompt requires?', pass_criteria: 'YES', judge: no('The answer is a single paragraph, not three bullet points.') },
      { question: 'Does the response explain that shorter (blue) wavelengths are scattered more by the atmosphere?', pass_criteria: 'YES', judge: yes('It names Rayleigh scattering of shorter wavelengths.') },
    ],
    answer: 'The sky looks blue because air molecules scatter short wavelengths of sunlight (blue) much more strongly than long ones (red), an effect called Rayleigh scattering, so blue light reaches your eyes from every direction.',
  },
  {
    topic: 'Business & Work',
    challenge: 'Version Editing',
    turns: [
      { role: 'user', content: 'Write a two-sentence note to my team: the design review is on Tuesday at 2 pm in Room 4B.' },
      { role: 'assistant', content: 'Hi team, our design review is on Tuesday at 2 pm in Room 4B. Please bring your latest mock-ups.' },
      { role: 'user', content: 'Move it to Thursday, same time and room. Keep everything else.' },
    ],
    rubric: [
      { question: 'Does the revised note put the design review on Thursday?', pass_criteria: 'YES', judge: yes('Thursday is stated.') },
      { question: 'Does the revised note still give 2 pm and Room 4B?', pass_criteria: 'YES', judge: no('The time is kept but the room is now 4C.') },
      { question: 'Does the revised note still name Tuesday as the day of the review?', pass_criteria: 'NO', judge: no('Tuesday no longer appears.') },
    ],
    answer: 'Hi team, our design review is on Thursday at 2 pm in Room 4C. Please bring your latest mock-ups.',
  },
  {
    topic: 'Travel',
    challenge: 'Self-Coherence',
    turns: [
      { role: 'user', content: 'When does the last direct train from Lyon to Geneva leave tonight?' },
      { role: 'assistant', content: 'According to the timetable you shared, the last direct train leaves Lyon Part-Dieu at 19:40.' },
      { role: 'user', content: 'If I get to the station at 19:55, will I make it?' },
    ],
    rubric: [
      { question: 'Is the answer consistent with the 19:40 departure the assistant gave earlier (that is, does it say the user would miss the train)?', pass_criteria: 'YES', judge: no('It says the user will make it, contradicting the 19:40 departure.') },
    ],
    answer: 'Yes, 19:55 gives you enough time; the last direct train will still be there.',
  },
  {
    topic: 'Food & Cooking',
    challenge: 'Inference Memory',
    turns: [
      { role: 'user', content: "I'm hosting six friends on Saturday. Two of them are coeliac, so keep that in mind." },
      { role: 'assistant', content: 'Noted: two of your guests need a strictly gluten-free menu. What kind of dinner are you planning?' },
      { role: 'user', content: 'Something Italian. What main course should I make?' },
    ],
    rubric: [
      { question: 'Is the suggested main course gluten-free (or made with gluten-free pasta or flour)?', pass_criteria: 'YES', judge: yes('Risotto is naturally gluten-free, and the answer warns about the stock.') },
      { question: 'Does the response suggest regular wheat pasta or bread for the coeliac guests?', pass_criteria: 'NO', judge: no('No wheat products are suggested.') },
    ],
    answer: 'Make a mushroom risotto for everyone: arborio rice is naturally gluten-free. Use a stock labelled gluten-free and serve it with a green salad.',
  },
];

/** The conversation as upstream's dataset_preprocess.py writes a row's `context`. */
const contextOf = (turns: Turn[]) => turns.map((turn) => `[${turn.role.toUpperCase()}]: ${turn.content}`).join('\n\n');

export function exampleRows(): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task, index) => ({
    uuid: `ngym_multichallenge_${index + 1}`,
    task_id: index + 1,
    agent_ref: { type: 'responses_api_agents', name: 'multichallenge_simple_agent' },
    responses_create_params: { input: task.turns },
    rubric: task.rubric.map(({ question, pass_criteria }) => ({ question, pass_criteria })),
    context: contextOf(task.turns),
    metadata: { topic: task.topic, challenge: task.challenge },
  }));
}

/** The judge's reply to a prompt: the one written for the rubric question it asks. */
export function judgeReply(prompt: string): string | undefined {
  return EXAMPLE_TASKS.flatMap((task) => task.rubric).find((item) => prompt.includes(`EVALUATION QUESTION:\n${item.question}\n`))?.judge;
}

/** The policy model and the judge of the example rollouts (the shipped config judges with the policy model). */
function exampleModel() {
  return scriptedModel(({ input }) => {
    const last = (input.at(-1) as { content?: unknown }).content as string;
    const reply = judgeReply(last);
    if (reply !== undefined) return { model: 'example-judge', output: [assistantMessage(reply, { id: 'msg_example_judge' })], usage: usage(400, 40) };
    const index = EXAMPLE_TASKS.findIndex((task) => task.turns.at(-1)?.content === last);
    const task = EXAMPLE_TASKS[index] as ExampleTask;
    return { id: `resp_example_${index}`, created_at: 1_764_000_000, model: 'example-model', output: [assistantMessage(task.answer, { id: `msg_example_${index}` })], usage: usage(300, 90) };
  });
}

async function main(): Promise<void> {
  await writeExampleData(EXAMPLE_DATA, exampleRows(), exampleModel().definition);
  process.stdout.write(`wrote ${EXAMPLE_DATA.examplePath} and ${EXAMPLE_DATA.rolloutsPath}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
