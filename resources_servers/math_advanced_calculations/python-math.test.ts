import { describe, expect, it } from 'vitest';
import { pythonFloatRepr } from 'ngym/python-compat';
import { pyCos, pyLog, pyPow, pySin } from './python-math.ts';

/**
 * Expected values printed by CPython 3.11 on glibc 2.36 (`repr(math.sin(x))` ...). The inputs are ones where
 * V8's Math.sin/cos/log/pow give a different last bit, so these tests fail for a Math.*-based version.
 */
const PYTHON: [string, number, number | undefined, string][] = [
  ['sin', 2.5, undefined, '0.5984721441039565'],
  ['sin', 18, undefined, '-0.750987246771676'],
  ['sin', 9.9, undefined, '-0.45753589377532133'],
  ['sin', -2.5, undefined, '-0.5984721441039565'],
  ['cos', -10.5, undefined, '-0.4755369279959925'],
  ['cos', -12.7, undefined, '0.9910848718142532'],
  ['cos', 6, undefined, '0.960170286650366'],
  ['cos', 16.3, undefined, '-0.8298057980706491'],
  ['log', 3, undefined, '1.0986122886681098'],
  ['log', 1.4, undefined, '0.3364722366212129'],
  ['log', 3.6, undefined, '1.2809338454620642'],
  ['log', 5.7, undefined, '1.7404661748405046'],
  ['pow', 2.5, -4, '0.0256'],
  ['pow', -13.4, 9, '-13929745610.903017'],
  ['pow', 14, -2, '0.00510204081632653'],
  ['pow', 20.25, -7, '7.161843178957987e-10'],
  ['pow', 5.25, 7.334357293009994, '191384.0052000249'],
  ['pow', 7.4, 5, '22190.066240000004'],
  ['pow', -3.4, 7, '-5252.335014399999'],
  // Values from upstream's recorded tool outputs.
  ['cos', 4, undefined, '-0.6536436208636119'],
  ['sin', 1, undefined, '0.8414709848078965'],
  ['cos', 0.5532947556651122, undefined, '0.8507977712171255'],
  ['pow', 8, 10, '1073741824.0'],
];

const FUNCTIONS = { sin: pySin, cos: pyCos, log: (x: number) => pyLog(x), pow: pyPow } as const;

describe('Python math, bit for bit', () => {
  it.each(PYTHON)('%s(%d, %s) = %s', (name, x, y, expected) => {
    const value = FUNCTIONS[name as keyof typeof FUNCTIONS](x, y as number);
    expect(typeof value).toBe('number');
    expect(pythonFloatRepr(value as number)).toBe(expected);
  });

  it('log with a base is the quotient of two logs; log(x, 1) divides by zero', () => {
    expect(pyLog(2, 3.5)).toBe(pyLog(2) / pyLog(3.5));
    expect(pythonFloatRepr(pyLog(2, 3.5))).toBe('0.5532947556651122');
    expect(() => pyLog(5, 1)).toThrow('float division by zero');
  });

  it('raises Python exceptions with their names and messages', () => {
    const raised = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return `${(error as Error).name}: ${(error as Error).message}`;
      }
      return 'no error';
    };
    expect(raised(() => pyLog(0))).toBe('ValueError: math domain error');
    expect(raised(() => pyLog(-1))).toBe('ValueError: math domain error');
    expect(raised(() => pyLog(-Infinity))).toBe('ValueError: math domain error');
    expect(raised(() => pySin(Infinity))).toBe('ValueError: math domain error');
    expect(raised(() => pyCos(-Infinity))).toBe('ValueError: math domain error');
    expect(raised(() => pyPow(0, -1))).toBe('ZeroDivisionError: 0.0 cannot be raised to a negative power');
    expect(raised(() => pyPow(10, 400))).toBe("OverflowError: (34, 'Numerical result out of range')");
    expect(raised(() => pyPow(-10, 400.5))).toBe('OverflowError: complex exponentiation');
  });

  it("follows CPython's float_pow special cases", () => {
    expect(pyPow(Number.NaN, 0)).toBe(1);
    expect(pyPow(1, Number.NaN)).toBe(1);
    expect(pyPow(-1, 1e300)).toBe(1);
    expect(pyPow(0.5, Infinity)).toBe(0);
    expect(pyPow(-Infinity, 3)).toBe(-Infinity);
    expect(Object.is(pyPow(-0, 3), -0)).toBe(true);
    expect(pyPow(2, -1075)).toBe(0); // exactly halfway to the smallest subnormal: ties to even
    expect(pyPow(2, -1074)).toBe(5e-324);
    expect(pyPow(10, -400)).toBe(0);
    expect(pyPow(-8, 0.5)).toEqual({ real: 1.7319121124709868e-16, imag: 2.8284271247461903 });
  });

  it('small arguments and NaN pass through as in C', () => {
    expect(pySin(1e-300)).toBe(1e-300);
    expect(pyCos(1e-300)).toBe(1);
    expect(pySin(Number.NaN)).toBeNaN();
    expect(pyLog(Number.NaN)).toBeNaN();
    expect(pyLog(1)).toBe(0);
    expect(pyLog(Infinity)).toBe(Infinity);
    expect(pythonFloatRepr(pySin(1e22))).toBe('-0.8522008497671888');
  });
});
