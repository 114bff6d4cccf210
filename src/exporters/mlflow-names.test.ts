import { describe, expect, it } from 'vitest';
import { flattenConfig, MAX_NAME_LENGTH, mlflowName } from './mlflow-names.ts';

describe('MLflow names', () => {
  it('maps gym names onto the characters and path shapes MLflow accepts, as upstream', () => {
    expect(mlflowName('echo_agent/pass@1')).toBe('echo_agent/pass_at_1');
    expect(mlflowName('key_metrics/a/mean/reward')).toBe('key_metrics/a/mean/reward');
    expect(mlflowName('servers[0].name')).toBe('servers_0_.name');
    expect(mlflowName('/a//b/')).toBe('a/b');
    expect(mlflowName('a/../b')).toBe('a/__/b');
    expect(mlflowName('...x')).toBe('___x');
    expect(mlflowName('///')).toBeUndefined();
  });

  it('cuts an over-long name in the middle, keeping both ends', () => {
    const name = mlflowName(`bench/${'x'.repeat(400)}/mean/reward`) as string;
    expect(name).toHaveLength(MAX_NAME_LENGTH);
    expect(name.startsWith('bench/xxx')).toBe(true);
    expect(name.endsWith('/mean/reward')).toBe(true);
    expect(name).toContain('___');
  });

  it('flattens a config to dotted keys, lists by index', () => {
    expect(flattenConfig({ a: { b: 1, c: [true, { d: null }] }, e: 'x' })).toEqual([
      ['a.b', 1],
      ['a.c[0]', true],
      ['a.c[1].d', null],
      ['e', 'x'],
    ]);
  });
});
