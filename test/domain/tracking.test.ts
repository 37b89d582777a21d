// The tracking rules as pure functions: contact matching, the lookup decision, the progress line.
import { describe, expect, it } from 'vitest';
import { contactMatches, orderNumberKey, orderNumberLockKey, orderNumberVariants } from '../../domain/tracking-contact.js';
import { decideTracking } from '../../domain/tracking-decision.js';
import { progressLine } from '../../domain/tracking-progress.js';

describe('the contact is the last 4 digits of the phone or the email', () => {
  it('compares digits only on both sides', () => {
    expect(contactMatches('5678', '+212 6-12-34-56-78', null)).toBe(true);
    expect(contactMatches('56-78', '+212612345678', null)).toBe(true);
    expect(contactMatches(' 5 6 7 8 ', '06 12 34 56 78', null)).toBe(true);
  });
  it('refuses anything but exactly the last 4 digits', () => {
    expect(contactMatches('5677', '+212 6-12-34-56-78', null)).toBe(false);
    expect(contactMatches('345678', '+212 6-12-34-56-78', null)).toBe(false);
    expect(contactMatches('212612345678', '+212 6-12-34-56-78', null)).toBe(false);
    expect(contactMatches('', '+212 6-12-34-56-78', null)).toBe(false);
    expect(contactMatches('123', '123', null)).toBe(false);
  });
  it('matches the email case-insensitively and trimmed', () => {
    expect(contactMatches('  Ali@Example.COM ', '+212612345678', 'ali@example.com')).toBe(true);
    expect(contactMatches('ali@example.com', null, ' ALI@example.com')).toBe(true);
    expect(contactMatches('ali@example.org', null, 'ali@example.com')).toBe(false);
  });
  it('never matches an order without phone and email', () => {
    expect(contactMatches('0000', null, null)).toBe(false);
    expect(contactMatches('@', null, null)).toBe(false);
  });
});

describe('order numbers are looked up with or without a leading #', () => {
  it('drops one leading # and surrounding spaces', () => {
    expect(orderNumberKey(' #1001 ')).toBe('1001');
    expect(orderNumberKey('1001')).toBe('1001');
    expect(orderNumberVariants('1001')).toEqual(['1001', '#1001']);
    // Every spelling reaching a stored "#1001" (typed "##1001" finds it too) has one lock key.
    for (const text of ['1001', '#1001', '##1001', ' # #1001 ']) expect(orderNumberLockKey(text)).toBe('1001');
  });
});

describe('the lookup decision', () => {
  const api = { source: 'api' as const, phone: '+212612345678', email: 'a@example.com' };
  const outside = { source: 'platform_a' as const, phone: '+212600001111', email: 'b@example.com' };
  it('no order is not_found, even with a lockout', () => {
    expect(decideTracking([], '5678', { retryAfter: 9 })).toEqual({ kind: 'not_found' });
  });
  it('a running lockout answers locked whatever the contact', () => {
    expect(decideTracking([api], '5678', { retryAfter: 9 })).toEqual({ kind: 'locked', retryAfter: 9 });
    expect(decideTracking([api], undefined, { retryAfter: 0 })).toEqual({ kind: 'locked', retryAfter: 1 });
  });
  it('an outside order without contact asks for it; an api order is shown', () => {
    expect(decideTracking([outside], undefined, null)).toEqual({ kind: 'contact_missing' });
    expect(decideTracking([api], undefined, null)).toEqual({ kind: 'found', order: api });
  });
  it('a number shared by several orders needs the contact, which picks the matching one', () => {
    expect(decideTracking([api, outside], undefined, null)).toEqual({ kind: 'contact_missing' });
    expect(decideTracking([api, outside], '1111', null)).toEqual({ kind: 'found', order: outside });
    expect(decideTracking([api, outside], 'A@example.com', null)).toEqual({ kind: 'found', order: api });
    expect(decideTracking([api, outside], '9999', null)).toEqual({ kind: 'contact_wrong' });
  });
  it('a given contact is checked on api orders too', () => {
    expect(decideTracking([api], '0000', null)).toEqual({ kind: 'contact_wrong' });
  });
});

describe('the progress line', () => {
  it('runs pending → confirmed → shipped → out for delivery → delivered', () => {
    expect(progressLine('shipped')!.map((s) => `${s.label}:${s.state}`)).toEqual([
      'Pending:done',
      'Confirmed:done',
      'Shipped:current',
      'Out for delivery:todo',
      'Delivered:todo',
    ]);
  });
  it('has no line for a cancelled order', () => {
    expect(progressLine('cancelled')).toBeNull();
  });
});
