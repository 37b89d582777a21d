import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import {
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  PLATFORM_A_STATUS_MAP,
  PLATFORM_B_STATUS_MAP,
  SERVICE_STATUS_MAP,
  applyDeliveryFacts,
  canTransition,
  defaultStatusKind,
  interpretStatus,
  isOrderStatus,
  type OrderStatus,
} from '../../domain/order-status.js';

describe('platform_a statuses', () => {
  it.each([
    ['pending', 'pending'],
    ['on-hold', 'pending'],
    ['processing', 'confirmed'],
    ['completed', 'completed'],
    ['cancelled', 'cancelled'],
    ['refunded', 'cancelled'],
    ['failed', 'cancelled'],
    ['shipped', 'shipped'],
    ['out-for-delivery', 'out_for_delivery'],
    ['out_for_delivery', 'out_for_delivery'],
    ['delivered', 'completed'],
  ] as const)('slug %s maps to %s', (slug, status) => {
    expect(interpretStatus('platform_a', slug)).toEqual({ ok: true, status });
  });

  it('accepts every slug with the wc- prefix and the neutral platform_a- prefix', () => {
    for (const [slug, status] of Object.entries(PLATFORM_A_STATUS_MAP)) {
      expect(interpretStatus('platform_a', `wc-${slug}`)).toEqual({ ok: true, status });
      expect(interpretStatus('platform_a', `platform_a-${slug}`)).toEqual({ ok: true, status });
    }
  });

  it('matches case-insensitively and ignores surrounding spaces', () => {
    expect(interpretStatus('platform_a', '  WC-Processing ')).toEqual({ ok: true, status: 'confirmed' });
  });

  it('removes only one prefix', () => {
    expect(interpretStatus('platform_a', 'wc-wc-processing').ok).toBe(false);
  });

  it('does not take the other platform or service words', () => {
    expect(interpretStatus('platform_a', 'fulfilled').ok).toBe(false);
    expect(interpretStatus('platform_a', 'confirmed').ok).toBe(false);
  });
});

describe('platform_b statuses', () => {
  it.each([
    ['open', 'confirmed'],
    ['partial', 'confirmed'],
    ['fulfilled', 'shipped'],
    ['cancelled', 'cancelled'],
  ] as const)('%s maps to %s', (raw, status) => {
    expect(interpretStatus('platform_b', raw)).toEqual({ ok: true, status });
  });

  it('does not strip platform_a prefixes', () => {
    expect(interpretStatus('platform_b', 'wc-fulfilled').ok).toBe(false);
  });
});

describe('service statuses', () => {
  it('accepts the six order statuses as themselves', () => {
    for (const status of ORDER_STATUSES) expect(interpretStatus('service', status)).toEqual({ ok: true, status });
  });

  it.each([
    ['delivered', 'completed'],
    ['fulfilled', 'shipped'],
    ['processing', 'confirmed'],
    ['paid', 'confirmed'],
    ['canceled', 'cancelled'],
    ['CANCELED', 'cancelled'],
  ] as const)('alias %s means %s', (raw, status) => {
    expect(interpretStatus('service', raw)).toEqual({ ok: true, status });
  });
});

describe('draft-type statuses are skipped', () => {
  it.each(['checkout-draft', 'auto-draft', 'draft', 'trash'])('%s is skipped for every kind, with a reason', (slug) => {
    for (const kind of ['platform_a', 'platform_b', 'service'] as const) {
      expect(interpretStatus(kind, slug)).toEqual({ ok: true, skip: `draft-type status ${slug} is not stored` });
    }
  });

  it('a prefixed platform_a draft is skipped too', () => {
    expect(interpretStatus('platform_a', 'wc-checkout-draft')).toEqual({
      ok: true,
      skip: 'draft-type status checkout-draft is not stored',
    });
  });
});

describe('unknown statuses are refused, never defaulted', () => {
  it('an unknown status gives a message naming the value and the accepted ones', () => {
    const result = interpretStatus('platform_b', 'shipped');
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.message).toBe('unknown platform_b status "shipped"; expected one of: open, partial, fulfilled, cancelled');
  });

  it('an empty status is refused', () => {
    expect(interpretStatus('service', '   ')).toEqual({ ok: false, message: 'status must not be empty' });
  });

  it('names of Object.prototype are not statuses', () => {
    expect(interpretStatus('service', 'constructor').ok).toBe(false);
    expect(interpretStatus('platform_a', '__proto__').ok).toBe(false);
  });

  it('a very long unknown status is shortened in the message', () => {
    const result = interpretStatus('service', 'x'.repeat(10_000));
    expect(!result.ok && result.message.length).toBeLessThan(300);
  });
});

describe('delivery facts move an order forward', () => {
  it('delivered completes any status but cancelled', () => {
    for (const status of ORDER_STATUSES) {
      expect(applyDeliveryFacts(status, { delivered: true, hasTrackingNumber: false })).toBe(
        status === 'cancelled' ? 'cancelled' : 'completed',
      );
    }
  });

  it('a tracking number moves pending and confirmed to shipped', () => {
    expect(applyDeliveryFacts('pending', { hasTrackingNumber: true })).toBe('shipped');
    expect(applyDeliveryFacts('confirmed', { hasTrackingNumber: true })).toBe('shipped');
  });

  it('a tracking number never moves an order backwards or out of cancelled', () => {
    expect(applyDeliveryFacts('out_for_delivery', { hasTrackingNumber: true })).toBe('out_for_delivery');
    expect(applyDeliveryFacts('completed', { hasTrackingNumber: true })).toBe('completed');
    expect(applyDeliveryFacts('cancelled', { hasTrackingNumber: true })).toBe('cancelled');
  });

  it('delivered false changes nothing', () => {
    expect(applyDeliveryFacts('completed', { delivered: false, hasTrackingNumber: false })).toBe('completed');
    expect(applyDeliveryFacts('confirmed', { delivered: false, hasTrackingNumber: false })).toBe('confirmed');
  });
});

describe('PATCH status transitions', () => {
  it('a status may always be set to itself', () => {
    for (const status of ORDER_STATUSES) expect(canTransition(status, status)).toBe(true);
  });

  it('completed and cancelled are terminal', () => {
    for (const to of ORDER_STATUSES) {
      if (to !== 'completed') expect(canTransition('completed', to)).toBe(false);
      if (to !== 'cancelled') expect(canTransition('cancelled', to)).toBe(false);
    }
  });

  it('an order never goes back to pending or confirmed', () => {
    for (const from of ORDER_STATUSES) {
      if (from !== 'pending') expect(canTransition(from, 'pending')).toBe(false);
      if (from !== 'pending' && from !== 'confirmed') expect(canTransition(from, 'confirmed')).toBe(false);
    }
  });

  it('a failed delivery attempt sends out_for_delivery back to shipped', () => {
    expect(canTransition('out_for_delivery', 'shipped')).toBe(true);
  });

  it('every open status can be cancelled or completed', () => {
    for (const from of ['pending', 'confirmed', 'shipped', 'out_for_delivery'] as const) {
      expect(canTransition(from, 'cancelled')).toBe(true);
      expect(canTransition(from, 'completed')).toBe(true);
    }
  });
});

describe('defaults and guards', () => {
  it('a connection key defaults to its platform, any other key to service', () => {
    expect(defaultStatusKind('platform_a')).toBe('platform_a');
    expect(defaultStatusKind('platform_b')).toBe('platform_b');
    expect(defaultStatusKind(null)).toBe('service');
  });

  it('isOrderStatus accepts exactly the six statuses', () => {
    expect(ORDER_STATUSES.every(isOrderStatus)).toBe(true);
    expect(isOrderStatus('delivered')).toBe(false);
    expect(isOrderStatus(undefined)).toBe(false);
  });
});

describe('docs/orders.md prints the same tables as the code', () => {
  const doc = readFileSync(new URL('../../docs/orders.md', import.meta.url), 'utf8');
  // Rows of the first table after the heading: the first two cells, backticks removed.
  const rowsAfter = (heading: string): string[][] => {
    const start = doc.indexOf(heading);
    expect(start, `heading ${heading}`).toBeGreaterThanOrEqual(0);
    const lines = doc.slice(start).split('\n');
    const first = lines.findIndex((l) => l.startsWith('|'));
    const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
    const table = lines.slice(first + 2, end === -1 ? undefined : end);
    return table.map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.replaceAll('`', '').trim()),
    );
  };

  it('the transition table', () => {
    const documented = Object.fromEntries(
      rowsAfter('## PATCH status transitions').map(([from = '', to = '']) => [
        from,
        to === '(none, terminal)' ? [] : to.split(',').map((s) => s.trim()),
      ]),
    );
    expect(documented).toEqual(ORDER_TRANSITIONS);
  });

  it.each([
    ['### status_kind platform_a', PLATFORM_A_STATUS_MAP],
    ['### status_kind platform_b', PLATFORM_B_STATUS_MAP],
    ['### status_kind service', SERVICE_STATUS_MAP],
  ])('the mapping under %s', (heading, map) => {
    const documented: Record<string, OrderStatus> = {};
    for (const [raws = '', status = ''] of rowsAfter(heading)) {
      if (status.startsWith('skipped')) continue;
      for (const raw of raws.split(',')) documented[raw.trim()] = status as OrderStatus;
    }
    expect(documented).toEqual(map);
  });
});
