import { readFileSync } from 'node:fs';
import { ComputeEngine } from '@cortex-js/compute-engine';
import { describe, expect, it } from 'vitest';
import { answerCandidates } from './extract.ts';
import { normalizeLatex } from './latex-normalize.ts';
import { extractAnswers, verifyMathAnswer } from './math-verify.ts';
import { sympyFloat, sympyString } from './sympy-str.ts';

interface CorpusCase {
  expected_answer: string;
  generated: string;
  equivalent: boolean;
  note: string;
}

const corpus = readFileSync(new URL('./__fixtures__/equivalence-corpus.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as CorpusCase);

describe('verifyMathAnswer (regression corpus)', () => {
  it('has both equivalent and non-equivalent cases', () => {
    expect(corpus.filter((entry) => entry.equivalent).length).toBeGreaterThan(20);
    expect(corpus.filter((entry) => !entry.equivalent).length).toBeGreaterThan(10);
  });

  for (const entry of corpus) {
    it(`${entry.equivalent ? 'accepts' : 'rejects'}: ${entry.note}`, () => {
      expect(verifyMathAnswer(entry.expected_answer, entry.generated).reward).toBe(entry.equivalent ? 1 : 0);
    });
  }
});

describe('answer extraction', () => {
  it('prefers the boxed answer over a later bare number (priority 50 before 300)', () => {
    expect(verifyMathAnswer('4', 'So \\boxed{4}. Checking with 5 more steps gives 5.')).toEqual({ reward: 1, extractedAnswer: '4' });
  });

  it('takes the rightmost match within a priority', () => {
    expect(verifyMathAnswer('9', 'We get 3 at first; much later, after checking every step again, we find \\boxed{9}').extractedAnswer).toBe('9');
  });

  it('keeps the last box of a greedy \\boxed{...} match, with the boxes just before it (latex2sympy2 1.10)', () => {
    expect(normalizeLatex('\\boxed{1} and \\boxed{\\frac{2}{3}}', 'last')).toBe('1,\\frac{2}{3}');
    expect(normalizeLatex('\\boxed{1} was only a first try. Going back over the whole computation slowly gives \\boxed{\\frac{2}{3}}', 'last')).toBe('\\frac{2}{3}');
    expect(normalizeLatex('\\boxed{2} and then, after thinking it over with care, \\boxed{2}', 'last')).toBe('2');
    expect(normalizeLatex('\\boxed{1} and \\boxed{2}', 'all')).toBe('1,2');
    expect(normalizeLatex('\\boxed{1} and \\boxed{2', 'last')).toBe('{2');
  });

  it('joins answers given as several environments into one set', () => {
    expect(verifyMathAnswer('\\{1, 2\\}', 'The roots are $1$ and $2$').reward).toBe(1);
  });

  it('returns the parsed value then the first matched string, as Math-Verify', () => {
    const items = extractAnswers('The final answer is $\\frac{6}{8}$. I hope it is correct.', ['expr', 'latex']);
    expect(items.map((item) => (item.kind === 'value' ? item.display : `text:${item.text}`))).toEqual(['3/4', 'text:\\frac{6}{8}']);
  });

  it('does not take a number from inside a formula that failed to parse', () => {
    const groups = answerCandidates('Answer: $\\badmacro{12}$', ['expr', 'latex']);
    expect(groups.length).toBeGreaterThan(0);
    expect(verifyMathAnswer('12', 'Answer: $\\frac{12}{$').reward).toBe(0);
  });

  it('gives no answer and reward 0 when the gold answer cannot be read', () => {
    expect(verifyMathAnswer('', '\\boxed{1}')).toEqual({ reward: 0, extractedAnswer: null });
  });

  it('unwraps \\(...\\) around the expected answer', () => {
    expect(verifyMathAnswer('\\(\\sqrt{2}\\)', '\\boxed{\\sqrt{2}}')).toEqual({ reward: 1, extractedAnswer: 'sqrt(2)' });
  });
});

describe('comma lists', () => {
  it('reads a bare comma list as a set, as latex2sympy2 does: order does not matter, sympy prints it sorted', () => {
    expect(verifyMathAnswer('2, 3', 'The roots are \\boxed{3, 2}')).toEqual({ reward: 1, extractedAnswer: '{2, 3}' });
    expect(verifyMathAnswer('2, 3', '\\boxed{2, 4}')).toEqual({ reward: 0, extractedAnswer: '{2, 4}' });
    expect(verifyMathAnswer('2', '\\boxed{2, 2}').extractedAnswer).toBe('{2}');
    expect(verifyMathAnswer('1000', '\\boxed{1,000}')).toEqual({ reward: 1, extractedAnswer: '1000' });
    expect(verifyMathAnswer('(1,2)', '\\boxed{(2, 1)}').reward).toBe(0);
  });
});

describe('sympy text form', () => {
  it('prints numbers, powers, products and relations as sympy does', () => {
    expect(sympyString(['Divide', 166, 998])).toBe('83/499');
    expect(sympyString(['Negate', 4])).toBe('-4');
    expect(sympyString(['Sqrt', 2])).toBe('sqrt(2)');
    expect(sympyString(['Add', ['Power', 'x', 2], ['InvisibleOperator', 2, 'x'], 1])).toBe('x**2 + 2*x + 1');
    expect(sympyString(['Divide', 'a', ['Multiply', 2, 'b']])).toBe('a/((2*b))');
    expect(sympyString(['Equal', 'x', 5])).toBe('Eq(x, 5)');
    expect(sympyString(['Interval', ['Open', 0], 1])).toBe('Interval.Lopen(0, 1)');
    expect(sympyString(['Set', 1, 2])).toBe('{1, 2}');
    expect(sympyString(['Set', 'x', 2, ['Sqrt', 2], 1, 2])).toBe('{1, 2, sqrt(2), x}');
    expect(sympyString('Pi')).toBe('pi');
  });

  // Expected texts are what sympy 1.14 prints for the unevaluated tree latex2sympy2 builds from each answer.
  it.each([
    ['\\frac{(1+\\sqrt{3})^{4033}-(1-\\sqrt{3})^{4033}}{2^{2017}\\sqrt{3}}', '(-(1 - sqrt(3))**4033 + (1 + sqrt(3))**4033)/((2**2017*sqrt(3)))'],
    ['\\sqrt{3}+1', '1 + sqrt(3)'],
    ['-x+2', '2 - x'],
    ['1-\\sqrt{2}', '1 - sqrt(2)'],
    ['\\pi-3', '-3 + pi'],
    ['2-3', '-3 + 2'],
    ['1+x', 'x + 1'],
    ['b-a', '-a + b'],
    ['x-x^2', '-x**2 + x'],
    ['x+y+2+2xy', '2*x*y + x + y + 2'],
    ['\\frac{1}{x}+x', 'x + 1/x'],
    ['\\cos x + \\sin x', 'sin(x) + cos(x)'],
    ['\\frac{\\sqrt{5}-1}{2}', '(-1 + sqrt(5))/2'],
    ['\\frac{1}{2}-\\frac{\\sqrt{3}}{2}', '-1*sqrt(3)/2 + 1/2'],
    ['y-3x', '-1*3*x + y'],
    ['3-2\\sqrt{2}', '-1*2*sqrt(2) + 3'],
    ['-2^3+x', 'x - 1*2**3'],
    ['r^2\\pi', 'pi*r**2'],
    ['b a^2', 'a**2*b'],
    ['(a+b)(a-b)', '(a - b)*(a + b)'],
    ['\\frac{2x}{3}', '(2*x)/3'],
    ['\\frac{4}{3}\\pi r^3', '4*pi*r**3/3'],
    ['-\\frac{x}{2}', '-1*x/2'],
    ['-(x+1)^2', '-(x + 1)**2'],
    ['x^{-2}', 'x**(-2)'],
    ['\\frac{1}{\\sqrt{x}}', '1/sqrt(x)'],
    ['\\sqrt[3]{2}', '2**(1/3)'],
    ['x+0.5', 'x + 0.5'],
    ['x = 2 - \\sqrt{3}', 'Eq(x, 2 - sqrt(3))'],
    ['\\exp(x)^2 y\\exp(x)', 'y*exp(x)*exp(x)**2'],
  ])('orders and prints %s as sympy does', (latex, expected) => {
    expect(sympyString(new ComputeEngine().parse(latex, { form: 'raw' }).json)).toBe(expected);
  });

  it('prints floats with 15 significant digits like sympy Float', () => {
    expect(sympyFloat(0.5)).toBe('0.500000000000000');
    expect(sympyFloat(1234.5)).toBe('1234.50000000000');
    expect(sympyFloat(0.0001)).toBe('0.000100000000000000');
    expect(sympyFloat(1e-5)).toBe('1.00000000000000e-5');
    expect(sympyFloat(1e20)).toBe('1.00000000000000e+20');
    expect(sympyFloat(-2.5)).toBe('-2.50000000000000');
  });
});

// Each row was run through upstream 0.7.0's library check (math-verify 0.8.0, latex2sympy2_extended 1.10.2):
// gold, answer, reward, extracted_answer as upstream reports them.
describe('Math-Verify 0.8 / latex2sympy2 1.10 rules (checked against upstream)', () => {
  it.each([
    ['9', '\\boxed{3} was wrong; the right value is \\boxed{9}', 0, '{3, 9}'],
    ['9', '\\boxed{3} was wrong. After a long and careful second look at every step, the value is \\boxed{9}', 1, '9'],
    ['\\frac{2}{3}', '\\boxed{1} and \\boxed{\\frac{2}{3}}', 0, '{2/3, 1}'],
    ['\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', '\\boxed{\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}}', 1, 'Matrix([[1, 2], [3, 4]])'],
    ['\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', '\\boxed{\\begin{pmatrix} 1 & 3 \\\\ 2 & 4 \\end{pmatrix}}', 0, 'Matrix([[1, 3], [2, 4]])'],
    ['12.5\\%', '\\boxed{12.5%}', 1, '12.5*(1/100)'],
    ['25\\%', '\\boxed{0.25}', 1, '0.250000000000000'],
    ['25\\%', '\\boxed{25}', 0, '25'],
    ['\\{-1, 1\\}', '\\boxed{x = \\pm 1}', 1, 'Eq(x, {-1, 1})'],
    ['\\{2+\\sqrt{3}, 2-\\sqrt{3}\\}', '\\boxed{2 \\pm \\sqrt{3}}', 1, '{2 - sqrt(3), sqrt(3) + 2}'],
    ['(2, \\infty)', '\\boxed{(2, \\infty)}', 1, 'Interval.open(2, oo)'],
    ['[2, \\infty)', '\\boxed{[2, \\infty)}', 1, 'Interval(2, oo)'],
    ['(1, -2)', '\\boxed{(1, -2)}', 1, '(1, -2)'],
    ['(0, 1]', '\\boxed{0 < x \\le 1}', 0, '(x <= 1) & (0 < x)'],
    ['720', '\\boxed{720.0}', 1, '720.000000000000'],
    ['x = 4', '\\boxed{x = 4.0}', 1, 'Eq(x, 4.0)'],
    ['\\sqrt{2}', '\\boxed{√2}', 0, '√2'],
    ['30', '\\boxed{30°}', 0, '30°'],
    ['\\frac{1}{2}', '\\boxed{½}', 0, '½'],
    ['\\frac{1}{2}', '\\boxed{0.5}', 1, '1/2'],
    ['\\{1, 2\\}', '\\boxed{\\{1, 2\\}}, \\boxed{\\{1, 2, 3\\}}', 0, 'FiniteSet({1, 2}, {1, 2, 3})'],
    ['\\(\\frac{1}{2}\\)', '\\boxed{0.5}', 1, '1/2'],
    // units, and/or lists, percent words, scientific notation, exp, unions, and sets of matrices, intervals, equations
    ["45 \\text{ km/h}", "\\boxed{45 \\text{km/h}}", 1, "45"],
    ["12 \\text{ m}^2", "\\boxed{12 m^2}", 0, "12*m**2"],
    ["12 \\text{ m}^2", "\\boxed{12 \\text{ square meters}}", 1, "12"],
    ["5 \\text{ cm}", "\\boxed{5 cm}", 1, "5"],
    ["\\{2, 5\\}", "\\boxed{2 \\text{ and } 5}", 1, "{2, 5}"],
    ["\\{2, 5\\}", "\\boxed{2 or 5}", 1, "{2, 5}"],
    ["40\\%", "\\boxed{40 percent}", 1, "40*(1/100)"],
    ["2.5 \\times 10^{-3}", "\\boxed{2.5 \\times 10^{-3}}", 1, "2.5/10**3"],
    ["720", "\\boxed{7.2 \\times 10^2}", 1, "7.2*10**2"],
    ["e^{2}", "\\boxed{e^2}", 1, "exp(2)"],
    ["(-\\infty, -1) \\cup (1, \\infty)", "\\boxed{(1, \\infty) \\cup (-\\infty, -1)}", 1, "Union(Interval.open(-oo, -1), Interval.open(1, oo))"],
    ["\\begin{pmatrix} 3 \\\\ -1 \\end{pmatrix}", "\\boxed{\\begin{pmatrix} -1 \\\\ 3 \\end{pmatrix}}, \\boxed{\\begin{pmatrix} 3 \\\\ -1 \\end{pmatrix}}", 0, "{Matrix([\n[-1],\n[ 3]]), Matrix([\n[ 3],\n[-1]])}"],
    ["(0, 1]", "\\boxed{(0, 2]} and \\boxed{[0, 1]}", 0, "{Interval(0, 1), Interval.Lopen(0, 2)}"],
    ["x = 4", "\\boxed{y = 4} and \\boxed{x = -4}", 0, "{Eq(x, -4), Eq(y, 4)}"],
    ["\\emptyset", "\\boxed{\\{0\\}} and \\boxed{\\emptyset}", 0, "FiniteSet(EmptySet, {0})"],
    // a \\text{} word inside a list is a symbol; \\pm and scientific notation inside a list
    ["5 \\text{ cm}", "First guess \\boxed{50 \\text{ mm}}, but correcting: \\boxed{5}", 0, "{5, 50*mm}"],
    ["\\{-1, 1\\}", "First guess \\boxed{1}, but correcting: \\boxed{\\pm 1}", 1, "{-1, 1}"],
    ["0.0025", "\\boxed{0.0025} and \\boxed{2.5 \\times 10^{3}}", 0, "{0.0025, 2.5*10**3}"],
    // a box that does not parse still lends a number its anchors allow (a space before it), as Math-Verify 0.8
    ["30 \\text{ degrees}", "\n\n   \\boxed{  30°  }   \n", 1, "30"],
    // a degree sign keeps `721,720` two numbers
    ["720", "First guess \\boxed{721}, but correcting: \\boxed{720^\\circ}", 0, "{720, 721}"],
  ])('%s vs %s', (gold, answer, reward, extracted) => {
    expect(verifyMathAnswer(gold, answer)).toEqual({ reward, extractedAnswer: extracted });
  });
});
