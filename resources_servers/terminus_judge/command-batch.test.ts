import { describe, expect, it } from 'vitest';
import { commandSimilarity, followsSchema, taskCompleteAgrees } from './command-batch.ts';

const batch = (...keystrokes: string[]) => ({ commands: keystrokes.map((text) => ({ keystrokes: text })) });

describe('terminus_judge command batches', () => {
  it("compares the keystrokes joined in order, by difflib's ratio; none on both sides is 1.0, on one side 0.0", () => {
    expect(commandSimilarity(batch('cd /tmp\n', 'ls\n'), batch('cd /tmp\nls\n'))).toBe(1);
    // CPython 3.11: SequenceMatcher(None, 'ls -la\n', 'ls -al\n').ratio()
    expect(commandSimilarity(batch('ls -la\n'), batch('ls -al\n'))).toBe(0.8571428571428571);
    // Long keystrokes meet difflib's autojunk: 0.04912280701754386 in CPython 3.11 for two heredocs one digit apart per line.
    const heredoc = (value: number) => `def f():\n    return ${value}\n`.repeat(12);
    expect(commandSimilarity(batch(`cat <<EOF > a.py\n${heredoc(1)}EOF\n`), batch(`cat > a.py <<EOF\n${heredoc(2)}EOF\n`))).toBe(0.04912280701754386);
    expect(commandSimilarity(batch(), batch())).toBe(1);
    expect(commandSimilarity(batch(), batch('ls\n'))).toBe(0);
    expect(commandSimilarity({ commands: [{ duration: 1 }] }, batch('ls\n'))).toBe(0);
    expect(commandSimilarity(batch(''), batch(''))).toBe(1);
  });

  it("checks each harness's schema: its keys only, the required ones, JSON types (a bool is no number, NaN is one)", () => {
    const terminus2 = { analysis: 'a', plan: 'p', commands: [{ keystrokes: 'ls\n', duration: 1 }] };
    expect(followsSchema(terminus2, 'terminus_2')).toBe(true);
    expect(followsSchema({ ...terminus2, commands: [{ keystrokes: 'ls\n', duration: Number.NaN }] }, 'terminus_2')).toBe(true);
    expect(followsSchema({ ...terminus2, commands: [{ keystrokes: 'ls\n', duration: true }] }, 'terminus_2')).toBe(false);
    expect(followsSchema({ ...terminus2, task_complete: 1 }, 'terminus_2')).toBe(false);
    expect(followsSchema(terminus2, 'terminus_1')).toBe(false);
    const terminus1 = { state_analysis: 's', explanation: 'e', commands: [{ keystrokes: 'ls\n', is_blocking: false, timeout_sec: 3 }], is_task_complete: false };
    expect(followsSchema(terminus1, 'terminus_1')).toBe(true);
    expect(followsSchema({ ...terminus1, commands: [{ keystrokes: 'ls\n', timeout_sec: 3 }] }, 'terminus_1')).toBe(false);
  });

  it('needs the model to declare the task complete when the gold batch does, under the same key', () => {
    expect(taskCompleteAgrees({ task_complete: true }, { task_complete: true })).toBe(true);
    expect(taskCompleteAgrees({}, { task_complete: true })).toBe(false);
    expect(taskCompleteAgrees({ is_task_complete: true }, { task_complete: true })).toBe(false);
    expect(taskCompleteAgrees({ is_task_complete: false }, { is_task_complete: true })).toBe(false);
    expect(taskCompleteAgrees({ task_complete: true }, { task_complete: false })).toBe(true);
  });
});
