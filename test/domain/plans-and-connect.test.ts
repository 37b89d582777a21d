// Pure rules of issue 16: the plan in force, the catalogue of a tracking_only store, the shipping status
// in words, and where a failed connect request may send the browser back.
import { describe, expect, it } from 'vitest';
import { connectReturnUrl, isShopsOwnReturn, parseConnectRequest } from '../../domain/connect-request.js';
import { effectivePlan, showsTrackingBadge } from '../../domain/plan.js';
import { sellsCatalogue } from '../../domain/store-mode.js';
import { shippingStatusText } from '../../domain/tracking-progress.js';

const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('the plan in force', () => {
  it('a paid plan is paid before its end, free from its end on; without an end it stays paid', () => {
    expect(effectivePlan({ plan: 'paid', paidUntil: '2026-11-24T12:00:01Z' }, NOW)).toBe('paid');
    expect(effectivePlan({ plan: 'paid', paidUntil: '2026-11-24T12:00:00Z' }, NOW)).toBe('free');
    expect(effectivePlan({ plan: 'paid', paidUntil: new Date('2020-01-01T00:00:00Z') }, NOW)).toBe('free');
    expect(effectivePlan({ plan: 'paid', paidUntil: '2026-11-24 13:00:00+00' }, NOW)).toBe('paid');
    expect(effectivePlan({ plan: 'paid', paidUntil: null }, NOW)).toBe('paid');
  });
  it('a free plan stays free whatever paid_until says; the badge is the free plan’s', () => {
    expect(effectivePlan({ plan: 'free', paidUntil: '2030-01-01T00:00:00Z' }, NOW)).toBe('free');
    expect(showsTrackingBadge({ plan: 'free', paidUntil: null }, NOW)).toBe(true);
    expect(showsTrackingBadge({ plan: 'paid', paidUntil: null }, NOW)).toBe(false);
    expect(showsTrackingBadge({ plan: 'paid', paidUntil: '2020-01-01T00:00:00Z' }, NOW)).toBe(true);
  });
});

describe('only a published store in full mode sells its catalogue', () => {
  it('tracking_only closes it as unpublished does', () => {
    expect(sellsCatalogue({ published: true, mode: 'full' })).toBe(true);
    expect(sellsCatalogue({ published: true, mode: 'tracking_only' })).toBe(false);
    expect(sellsCatalogue({ published: false, mode: 'full' })).toBe(false);
  });
});

describe('the shipping status in words', () => {
  it('the label once shipped, null before and when cancelled; a stored text wins', () => {
    expect(
      ['pending', 'confirmed', 'shipped', 'out_for_delivery', 'completed', 'cancelled'].map((s) => shippingStatusText(s as never)),
    ).toEqual([null, null, 'Shipped', 'Out for delivery', 'Delivered', null]);
    expect(shippingStatusText('shipped', 'At the depot')).toBe('At the depot');
  });
});

describe('a failed connect request goes back only to a return_url proven the shop’s', () => {
  const params = { site_url: 'https://shop.example/', return_url: 'https://shop.example/admin?p=1', state: 's1' };
  const parse = (platform: string, over: Partial<Record<string, string>>) =>
    parseConnectRequest(platform, (n) => (({ ...params, ...over }) as Record<string, string>)[n]);

  it('a bad platform or state keeps the way back (state only when usable)', () => {
    expect(parse('platform_z', {})).toMatchObject({ ok: false, returnTo: { returnUrl: 'https://shop.example/admin?p=1', state: 's1' } });
    expect(parse('platform_a', { state: '' })).toMatchObject({ ok: false, returnTo: { state: null } });
    expect(parse('platform_a', { state: 'x'.repeat(501) })).toMatchObject({ ok: false, returnTo: { state: null } });
  });
  it('without a valid site_url on the same host there is no way back', () => {
    for (const over of <Partial<Record<string, string>>[]>[
      { site_url: '' },
      { site_url: 'ftp://shop.example/' },
      { return_url: 'https://evil.example/' },
      { return_url: '' },
    ]) {
      expect(parse('platform_z', over)).toMatchObject({ ok: false, returnTo: null });
    }
  });
  it('the way back keeps return_url’s query and adds svc_error and state (state left out when null)', () => {
    expect(connectReturnUrl({ returnUrl: 'https://shop.example/admin?p=1', state: 's1' }, { error: 'plan_limit' })).toBe(
      'https://shop.example/admin?p=1&svc_error=plan_limit&state=s1',
    );
    expect(connectReturnUrl({ returnUrl: 'https://shop.example/admin', state: null }, { error: 'invalid_request' })).toBe(
      'https://shop.example/admin?svc_error=invalid_request',
    );
  });
});

describe('the connect code only travels to the shop’s own address', () => {
  const own = (site: string, back: string) => isShopsOwnReturn(new URL(site), new URL(back));

  it('same scheme, host and port pass; an upgrade from http to https on default ports passes', () => {
    expect(own('https://shop.example/', 'https://SHOP.example./wp-admin')).toBe(true);
    expect(own('http://shop.example:8080/', 'http://shop.example:8080/admin')).toBe(true);
    expect(own('http://shop.example/', 'https://shop.example/admin')).toBe(true);
  });

  it('a downgrade to http, another port, or another host is refused', () => {
    expect(own('https://shop.example/', 'http://shop.example/admin')).toBe(false);
    expect(own('https://shop.example/', 'https://shop.example:8443/admin')).toBe(false);
    expect(own('http://shop.example:8080/', 'http://shop.example:9090/admin')).toBe(false);
    expect(own('http://shop.example:8080/', 'https://shop.example/admin')).toBe(false);
    expect(own('https://shop.example/', 'https://other.example/admin')).toBe(false);
  });

  it('the connect page refuses such a return_url, naming the rule', () => {
    const parsed = parseConnectRequest(
      'platform_a',
      (n) => ({ site_url: 'https://shop.example/', return_url: 'http://shop.example/admin', state: 's' })[n as 'state'],
    );
    expect(parsed).toMatchObject({ ok: false, problems: [expect.stringMatching(/https when site_url is https/)] });
  });
});
