import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import {
  FIRST_ORDER_HIGH_TOTAL,
  RISK_FLAGS,
  assessCodRisk,
  isPhoneValidFor,
  phoneKey,
  resolveCountry,
  type RiskInput,
} from '../../domain/risk.js';

const MOROCCAN_MOBILE = '+212 612-345678';
const safeOrder: RiskInput = {
  isCod: true,
  phone: MOROCCAN_MOBILE,
  country: 'MA',
  address: '12 Rue des Fleurs',
  city: 'Casablanca',
  total: 149.5,
  currency: 'MAD',
  history: { ordersWithPhone: 2, cancelledWithPhone: 0 },
};
const codes = (input: Partial<RiskInput>): string[] => assessCodRisk({ ...safeOrder, ...input })?.flags.map((f) => f.code) ?? [];

describe('only cash-on-delivery orders are assessed', () => {
  it('a prepaid order has no risk, however bad its data', () => {
    expect(assessCodRisk({ ...safeOrder, isCod: false, phone: '123', address: null })).toBeNull();
  });

  it('a COD order with nothing to flag has no risk object', () => {
    expect(assessCodRisk(safeOrder)).toBeNull();
  });
});

describe('phone_invalid', () => {
  it('a valid Moroccan mobile or landline, in national or international form, is fine', () => {
    for (const phone of [MOROCCAN_MOBILE, '0612345678', '06 12 34 56 78', '+212 5 22 12 34 56', '00212612345678']) {
      expect(isPhoneValidFor(phone, 'MA'), phone).toBe(true);
    }
  });

  it('a missing, short or unparsable phone is flagged', () => {
    for (const phone of [null, undefined, '', '   ', '123', 'call me', '0512345678']) {
      expect(codes({ phone }), String(phone)).toContain('phone_invalid');
    }
  });

  it('a valid number of another country is flagged for a Moroccan delivery', () => {
    expect(isPhoneValidFor('+33 6 12 34 56 78', 'MA')).toBe(false);
    expect(codes({ phone: '+33 6 12 34 56 78' })).toEqual(['phone_invalid']);
  });

  it('a number sharing the country calling code is accepted (+1 covers the US and Canada)', () => {
    expect(isPhoneValidFor('+1 416 555 0123', 'US')).toBe(true);
  });

  it('the country may be given by name, in several languages', () => {
    for (const country of ['Morocco', 'Maroc', 'marruecos', 'المغرب', ' ma ']) {
      expect(resolveCountry(country), country).toBe('MA');
      expect(isPhoneValidFor('0612345678', country), country).toBe(true);
    }
    expect(resolveCountry("Côte d'Ivoire")).toBe('CI');
    expect(resolveCountry('UK')).toBe('GB');
  });

  it('with an unknown country an international number is checked on its own', () => {
    expect(resolveCountry('Atlantis')).toBeUndefined();
    expect(isPhoneValidFor(MOROCCAN_MOBILE, 'Atlantis')).toBe(true);
    expect(isPhoneValidFor('+212 123', null)).toBe(false);
  });

  it('with an unknown country a national number is only refused when it cannot be a phone', () => {
    expect(isPhoneValidFor('0612345678', null)).toBe(true);
    expect(isPhoneValidFor('12345', 'XX')).toBe(false);
    expect(isPhoneValidFor('not a phone 0612345678', undefined)).toBe(false);
  });
});

describe('address_incomplete', () => {
  it('a missing or blank address line or city is flagged', () => {
    expect(codes({ address: null })).toEqual(['address_incomplete']);
    expect(codes({ address: '  ' })).toEqual(['address_incomplete']);
    expect(codes({ city: undefined })).toEqual(['address_incomplete']);
  });
});

describe('first_order_high_total', () => {
  const firstOrder = { history: { ordersWithPhone: 0, cancelledWithPhone: 0 } };

  it('a first order from a phone above the threshold is flagged', () => {
    expect(codes({ ...firstOrder, total: FIRST_ORDER_HIGH_TOTAL + 0.01 })).toEqual(['first_order_high_total']);
  });

  it('the threshold itself is not above it', () => {
    expect(codes({ ...firstOrder, total: FIRST_ORDER_HIGH_TOTAL })).toEqual([]);
  });

  it('a returning phone with a high total is not flagged', () => {
    expect(codes({ total: 5000 })).toEqual([]);
  });

  it('an order without a phone has no history to judge', () => {
    expect(codes({ ...firstOrder, phone: null, total: 5000 })).toEqual(['phone_invalid']);
  });
});

describe('previous_cancellations', () => {
  it('a phone with cancelled orders before is flagged high', () => {
    const risk = assessCodRisk({ ...safeOrder, history: { ordersWithPhone: 3, cancelledWithPhone: 1 } });
    expect(risk).toEqual({
      level: 'high',
      flags: [{ code: 'previous_cancellations', label: RISK_FLAGS.previous_cancellations.label }],
    });
  });
});

describe('risk level', () => {
  it('medium when every flag is medium and there are fewer than three', () => {
    const risk = assessCodRisk({ ...safeOrder, city: null, history: { ordersWithPhone: 0, cancelledWithPhone: 0 }, total: 900 });
    expect(risk?.level).toBe('medium');
    expect(risk?.flags.map((f) => f.code)).toEqual(['address_incomplete', 'first_order_high_total']);
  });

  it('high as soon as one flag is high', () => {
    expect(assessCodRisk({ ...safeOrder, phone: '123' })?.level).toBe('high');
  });

  it('high with three flags or more, and flags come in a fixed order with their labels', () => {
    const risk = assessCodRisk({
      ...safeOrder,
      phone: '123',
      address: '',
      total: 1000,
      history: { ordersWithPhone: 0, cancelledWithPhone: 0 },
    });
    expect(risk).toEqual({
      level: 'high',
      flags: [
        { code: 'phone_invalid', label: RISK_FLAGS.phone_invalid.label },
        { code: 'address_incomplete', label: RISK_FLAGS.address_incomplete.label },
        { code: 'first_order_high_total', label: RISK_FLAGS.first_order_high_total.label },
      ],
    });
  });
});

describe('phone history key', () => {
  it('the same phone written two ways gives the same E.164 key', () => {
    expect(phoneKey('06 12 34 56 78', 'MA')).toBe('+212612345678');
    expect(phoneKey(MOROCCAN_MOBILE, 'Maroc')).toBe('+212612345678');
  });

  it('an invalid phone keys by its digits, and no digits give no key', () => {
    expect(phoneKey('12-3', 'MA')).toBe('123');
    expect(phoneKey('', 'MA')).toBeNull();
    expect(phoneKey(null, null)).toBeNull();
  });
});

describe('docs/orders.md lists every flag', () => {
  it('with its label and severity', () => {
    const doc = readFileSync(new URL('../../docs/orders.md', import.meta.url), 'utf8');
    for (const [code, { label, severity }] of Object.entries(RISK_FLAGS)) {
      expect(doc).toContain(`| \`${code}\` | ${label} | ${severity} |`);
    }
  });
});
