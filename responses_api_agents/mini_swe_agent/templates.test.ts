/**
 * Our rendering of mini-swe-agent's prompts and observations equals Jinja's (python/parity/jinja_render.py
 * in the venv of `npm run setup:python`), for the templates upstream ships.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { loadTemplates, observation, render } from './templates.ts';

const VENV_PYTHON = join(process.env.NGYM_PYTHON_VENV ?? join(PACKAGE_ROOT, '.venv'), 'bin', 'python');

/** Upstream's action_observation_template (extra/swebench.yaml), which observation() renders in code. */
const OBSERVATION_TEMPLATE = `<returncode>{{output.returncode}}</returncode>
{% if output.output | length < 10000 -%}
<output>
{{ output.output -}}
</output>
{%- else -%}
<warning>
The output of your last command was too long.
Please try a different command that produces less output.
If you're looking at a file you can try use head, tail or sed to view a smaller number of lines selectively.
If you're using grep or find and it produced too much output, you can use a more selective search pattern.
If you really need to see something from the full command's output, you can redirect output to a file and then search in that file.
</warning>
{%- set elided_chars = output.output | length - 10000 -%}
<output_head>
{{ output.output[:5000] }}
</output_head>
<elided_chars>
{{ elided_chars }} characters elided
</elided_chars>
<output_tail>
{{ output.output[-5000:] }}
</output_tail>
{%- endif -%}
`;

describe('mini_swe_agent templates', () => {
  it('fills fields and drops one trailing newline', () => {
    expect(render('a {{task}} b {{ x }}\n', { task: '{{not a field}}', x: 3 })).toBe('a {{not a field}} b 3');
    expect(() => render('{{missing}}', {})).toThrow(/has no value/);
  });

  it('shows a long output as head and tail', () => {
    const long = `${'a'.repeat(6000)}${'é'.repeat(6000)}`;
    const text = observation(1, long);
    expect(text).toContain('<elided_chars>\n2000 characters elided\n</elided_chars>');
    expect(text).toContain(`<output_tail>\n${'é'.repeat(5000)}\n</output_tail>`);
  });

  it.skipIf(!existsSync(VENV_PYTHON))('renders as Jinja renders upstream’s templates', () => {
    const templates = loadTemplates();
    const outputs = ['', 'one line', 'two\nlines\n', 'x'.repeat(9999), `${'y'.repeat(10_000)}`, `${'ü'.repeat(7000)}\n${'z'.repeat(7000)}`];
    const cases = [
      { template: templates.system_template, context: {}, ours: render(templates.system_template, {}) },
      { template: templates.instance_template, context: { task: 'Fix {{it}} & <that>' }, ours: render(templates.instance_template, { task: 'Fix {{it}} & <that>' }) },
      { template: templates.format_error_template, context: { actions: ['a', 'b'] }, ours: render(templates.format_error_template, { 'actions|length': 2 }) },
      { template: templates.timeout_template, context: { action: { action: 'sleep 9' }, output: 'partial' }, ours: render(templates.timeout_template, { "action['action']": 'sleep 9', output: 'partial' }) },
      { template: templates.collapse_template, context: { collapse_limit: 3, repeated_command: 'ls' }, ours: render(templates.collapse_template, { collapse_limit: 3, repeated_command: 'ls' }) },
      ...outputs.map((output, index) => ({ template: OBSERVATION_TEMPLATE, context: { output: { returncode: index - 1, output } }, ours: observation(index - 1, output) })),
    ];
    const rendered = JSON.parse(
      execFileSync(VENV_PYTHON, [join(PACKAGE_ROOT, 'python', 'parity', 'jinja_render.py')], { input: JSON.stringify(cases.map(({ template, context }) => ({ template, context }))), encoding: 'utf8' }),
    ) as string[];
    cases.forEach((entry, index) => expect(entry.ours, `case ${index}`).toBe(rendered[index]));
  });
});
