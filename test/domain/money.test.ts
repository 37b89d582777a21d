import { describe, it, expect } from 'vitest';
import {
  MAX_MONEY_UNITS,
  addMoney,
  fromUnits,
  isMoneyAmount,
  maxMoney,
  mulMoney,
  toNumericString,
  toNumericText,
  toUnits,
} from '../../domain/money.js';

describe("checking amounts (isMoneyAmount, the input schemas' rule)", () => {
  it('accepts what has at most 4 decimals and fits 15 digits, plain or not', () => {
    for (const n of [0, 19.99, 0.0001, 1e-4, 12.345, 99_999_999_999.9999, 1e10, -5, 100]) expect(isMoneyAmount(n), String(n)).toBe(true);
  });
  it('refuses a fifth decimal, a value of 10^11 or more, and what is not finite', () => {
    for (const n of [0.00001, 19.99999, 1e-7, 5e-324, 1e11, 100_000_000_000.5, 1e21, NaN, Infinity, -Infinity])
      expect(isMoneyAmount(n), String(n)).toBe(false);
  });
});

describe('reading amounts', () => {
  it('numbers and strings become exact units of 10^-4', () => {
    expect(toUnits(19.99)).toBe(199_900n);
    expect(toUnits('19.99')).toBe(199_900n);
    expect(toUnits(0)).toBe(0n);
    expect(toUnits(-5)).toBe(-50_000n);
    expect(toUnits(0.0001)).toBe(1n);
    expect(toUnits(' 7 ')).toBe(70_000n);
    expect(toUnits('007.5')).toBe(75_000n);
    expect(toUnits(12.345)).toBe(123_450n);
    expect(toUnits('12.')).toBe(120_000n);
    expect(toUnits('.25')).toBe(2_500n);
  });

  it('PostgreSQL numeric strings read back, extra zero decimals included', () => {
    expect(toUnits('19.9900')).toBe(199_900n);
    expect(toUnits('19.990000')).toBe(199_900n);
    expect(toUnits('-0.5000')).toBe(-5_000n);
  });

  it('exponent forms are read exactly', () => {
    expect(toUnits(1e-4)).toBe(1n);
    expect(toUnits('1.5e3')).toBe(15_000_000n);
    expect(toUnits(1e10)).toBe(100_000_000_000_000n);
  });

  it('more than four decimals is refused, never rounded', () => {
    expect(() => toUnits(0.00001)).toThrow(RangeError);
    expect(() => toUnits('19.99999')).toThrow(RangeError);
    expect(() => toUnits(0.1 + 0.2)).toThrow(RangeError);
  });

  it('NaN, Infinity and non-numbers are refused', () => {
    for (const bad of [Number.NaN, Infinity, -Infinity]) expect(() => toUnits(bad)).toThrow(RangeError);
    for (const bad of ['', '.', 'abc', '1,5', '0x10', '1e', '--1', '12 34']) expect(() => toUnits(bad)).toThrow(RangeError);
  });

  it('amounts of 10^11 and more are refused', () => {
    expect(toUnits('99999999999.9999')).toBe(MAX_MONEY_UNITS);
    expect(() => toUnits(100_000_000_000)).toThrow(RangeError);
    expect(() => toUnits(1e21)).toThrow(RangeError);
    expect(() => toUnits('1e999999999')).toThrow(RangeError);
  });
});

describe('writing amounts', () => {
  it('units become plain JSON numbers in shortest form', () => {
    expect(fromUnits(199_900n)).toBe(19.99);
    expect(JSON.stringify({ total: fromUnits(199_900n) })).toBe('{"total":19.99}');
    expect(fromUnits(-5_000n)).toBe(-0.5);
    expect(Object.is(fromUnits(0n), 0)).toBe(true);
  });

  it('the largest amount round-trips exactly through a JSON number', () => {
    expect(fromUnits(MAX_MONEY_UNITS)).toBe(99999999999.9999);
    expect(toUnits(fromUnits(MAX_MONEY_UNITS))).toBe(MAX_MONEY_UNITS);
  });

  it('numeric column strings carry four decimals', () => {
    expect(toNumericString(199_900n)).toBe('19.9900');
    expect(toNumericString(-5_000n)).toBe('-0.5000');
    expect(toNumericString(1n)).toBe('0.0001');
    expect(toNumericString(0n)).toBe('0.0000');
    expect(toNumericString(MAX_MONEY_UNITS)).toBe('99999999999.9999');
    expect(toNumericString(0n)).toBe('0.0000');
    expect(toNumericString(1n)).toBe('0.0001');
  });
});

describe('arithmetic is exact', () => {
  it('0.1 + 0.2 is 0.3', () => {
    expect(fromUnits(addMoney(toUnits(0.1), toUnits(0.2)))).toBe(0.3);
  });

  it('19.99 × 3 is 59.97', () => {
    expect(fromUnits(mulMoney(toUnits(19.99), 3))).toBe(59.97);
  });

  it('adding nothing is zero and adding many keeps every cent', () => {
    expect(addMoney()).toBe(0n);
    const hundredDimes = addMoney(...Array.from({ length: 100 }, () => toUnits(0.1)));
    expect(fromUnits(hundredDimes)).toBe(10);
  });

  it('a quantity must be a whole number', () => {
    expect(() => mulMoney(toUnits(1), 1.5)).toThrow(RangeError);
    expect(() => mulMoney(toUnits(1), Number.NaN)).toThrow(RangeError);
  });

  it('maxMoney picks the largest amount', () => {
    expect(maxMoney(toUnits(-3), 0n)).toBe(0n);
    expect(maxMoney(toUnits(2), toUnits(10), toUnits(5))).toBe(toUnits(10));
    expect(maxMoney(7n)).toBe(7n);
  });
});

describe('toNumericText: the numeric text of an amount, as toNumericString(toUnits(x))', () => {
  it('writes four decimals, for plain amounts and the long way alike', () => {
    expect(toNumericText(19.99)).toBe('19.9900');
    expect(toNumericText(0.5)).toBe('0.5000');
    expect(toNumericText(7)).toBe('7.0000');
    expect(toNumericText(0)).toBe('0.0000');
    expect(toNumericText(99999999999.9999)).toBe('99999999999.9999');
    expect(toNumericText(' 12.3 ')).toBe('12.3000');
    expect(toNumericText('007.5')).toBe('7.5000');
    expect(toNumericText(-3.25)).toBe('-3.2500');
    expect(toNumericText(1e-4)).toBe('0.0001');
    expect(toNumericText('1.5e2')).toBe('150.0000');
  });

  it('refuses what toUnits refuses', () => {
    expect(() => toNumericText(Number.NaN)).toThrow(RangeError);
    expect(() => toNumericText(Infinity)).toThrow(RangeError);
    expect(() => toNumericText(1.23456)).toThrow(RangeError);
    expect(() => toNumericText(1e16)).toThrow(RangeError);
    expect(() => toNumericText('12,5')).toThrow(RangeError);
  });
});
