/**
 * The model of the benchmark runs: an OpenAI-compatible endpoint (`openai_model` points at it) whose answers are
 * scripted from the prompt. A policy call carries a task marker `[[q<n>]]` (stand-in-data.ts); the answer is the
 * task's expected answer or a wrong one, chosen from a hash of the task and the call's count so repeats differ, and
 * written the way the benchmark's verifier reads answers. A judge call (the prompt asks for a verdict) gets one of
 * the verdicts, also by hash. Every request is recorded.
 */
import { createHash } from 'node:crypto';
import { assistantMessage, type FakeEndpoint, modelResponse, startFakeEndpoint, usage } from '../../src/testing/index.ts';
import type { AnswerStyle } from './stand-in-data.ts';

interface ScriptedTask {
  expected: string;
  style: AnswerStyle;
}

/** A judge prompt and the verdict labels its server reads (equivalence_llm_judge's configured labels). */
interface JudgeLabels {
  equal: string;
  notEqual: string;
}

const MARKER = /\[\[q\d+\]\]/;

function textOf(input: unknown): string {
  if (!Array.isArray(input)) return String(input ?? '');
  return input.map((item: { content?: unknown }) => (typeof item.content === 'string' ? item.content : JSON.stringify(item.content ?? ''))).join('\n');
}

function score(text: string, count: number): number {
  return createHash('sha256').update(`${text}#${count}`).digest().readUInt32BE(0) / 2 ** 32;
}

function answer(task: ScriptedTask, right: boolean): string {
  // A wrong answer: another letter for a choice, the expected value plus one for a number or expression.
  const wrong = /^[A-J]$/.test(task.expected) ? (task.expected === 'A' ? 'B' : 'A') : task.style === 'judged' ? 'something else' : `(${task.expected})+1`;
  const value = right ? task.expected : wrong;
  switch (task.style) {
    case 'boxed':
      return `Let me think.\nThe final answer is \\boxed{${value}}.`;
    case 'answer-colon':
      return `Reasoning done.\nAnswer: ${value}`;
    case 'judged':
      return `Explanation: recalled.\nAnswer: ${value}\nConfidence: 80%`;
    case 'code': {
      // The stand-in tasks print the sum of two integers read from stdin.
      const code = right ? 'a, b = map(int, input().split())\nprint(a + b)' : 'print(0)';
      return `Here is the solution.\n\`\`\`python\n${code}\n\`\`\``;
    }
    case 'ifeval':
      return right ? 'tea is a calm drink enjoyed across the world and it is brewed from leaves. Is there anything else I can help with?' : 'Tea, Coffee, And More: A Long Answer With Commas, Capitals, and many, many words that go on and on to break every rule that was given.';
  }
}

export interface ScriptedPolicy extends FakeEndpoint {
  /** Tasks by marker; filled once the benchmark's data is prepared. */
  tasks: Map<string, ScriptedTask>;
  judge: JudgeLabels | undefined;
}

export async function startScriptedPolicy(): Promise<ScriptedPolicy> {
  const calls = new Map<string, number>();
  // The handler reads the returned object, whose judge labels the run sets per benchmark.
  let policy: ScriptedPolicy | undefined;
  const endpoint = await startFakeEndpoint((request) => {
    const text = textOf(request.body?.input);
    const count = (calls.get(text) ?? 0) + 1;
    calls.set(text, count);
    const marker = MARKER.exec(text)?.[0];
    const judge = policy?.judge;
    const task = marker === undefined ? undefined : policy?.tasks.get(marker);
    let reply: string;
    if (judge !== undefined && /\[correct_answer\]|GOLD:|reference answer/i.test(text)) reply = score(text, count) < 0.6 ? judge.equal : judge.notEqual;
    else if (task !== undefined) reply = answer(task, score(text, count) < 0.6);
    else return { status: 400, body: { error: { message: `the scripted policy has no task for this prompt: ${text.slice(0, 200)}` } } };
    return { body: modelResponse([assistantMessage(reply)], { usage: usage(Math.ceil(text.length / 4), Math.ceil(reply.length / 4)) }) };
  });
  policy = Object.assign(endpoint, { tasks: new Map<string, ScriptedTask>(), judge: undefined as JudgeLabels | undefined });
  return policy;
}
