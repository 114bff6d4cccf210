import { describe, expect, it } from 'vitest';
import { OutputLines } from './output-lines.ts';

describe('OutputLines', () => {
  it('joins lines split across chunks and holds back an unfinished one', () => {
    const lines = new OutputLines();
    expect(lines.push('first li')).toEqual([]);
    expect(lines.push('ne\nsecond\nthi')).toEqual(['first line', 'second']);
    expect(lines.push('rd\n')).toEqual(['third']);
  });

  it('never holds back more than its limit of output that ends no line', () => {
    const lines = new OutputLines(10);
    expect(lines.push('x'.repeat(25))).toEqual(['x'.repeat(10), 'x'.repeat(10)]);
    expect(lines.push('y'.repeat(4))).toEqual([]);
    expect(lines.push('\n')).toEqual(['xxxxxyyyy']);
  });
});
