import { describe, it, expect } from 'vitest';
import {
  INPUT_PAYMENT_STATUSES,
  PAYMENT_STATUSES,
  inferPaymentStatus,
  paymentMethodOf,
  paymentStatusFromInput,
} from '../../domain/payment.js';

describe('payment status given on input', () => {
  it('partially_refunded is stored as paid: the rest of the money is still held', () => {
    expect(paymentStatusFromInput('partially_refunded')).toBe('paid');
  });

  it('the five order payment statuses are kept as they are', () => {
    for (const status of PAYMENT_STATUSES) expect(paymentStatusFromInput(status)).toBe(status);
  });

  it('input accepts the five statuses plus partially_refunded', () => {
    expect(INPUT_PAYMENT_STATUSES).toEqual(['unpaid', 'pending', 'paid', 'failed', 'refunded', 'partially_refunded']);
  });
});

describe('payment status inferred for cash on delivery', () => {
  it('a completed (delivered) COD order is paid', () => {
    expect(inferPaymentStatus({ status: 'completed', isCod: true })).toBe('paid');
  });

  it.each(['pending', 'confirmed', 'shipped', 'out_for_delivery', 'cancelled'] as const)('a %s COD order is unpaid', (status) => {
    expect(inferPaymentStatus({ status, isCod: true })).toBe('unpaid');
  });

  it('a COD order ignores the platform_a refunded and failed slugs', () => {
    expect(inferPaymentStatus({ status: 'cancelled', isCod: true, rawStatus: 'wc-refunded' })).toBe('unpaid');
    expect(inferPaymentStatus({ status: 'cancelled', isCod: true, rawStatus: 'failed' })).toBe('unpaid');
  });
});

describe('payment status inferred for prepaid orders', () => {
  it('a pending order has a pending payment', () => {
    expect(inferPaymentStatus({ status: 'pending', isCod: false })).toBe('pending');
  });

  it.each(['confirmed', 'shipped', 'out_for_delivery', 'completed'] as const)('a %s order is paid', (status) => {
    expect(inferPaymentStatus({ status, isCod: false })).toBe('paid');
  });

  it('a cancelled order is unpaid', () => {
    expect(inferPaymentStatus({ status: 'cancelled', isCod: false })).toBe('unpaid');
  });

  it('platform_a refunded is refunded and failed is failed, with or without prefix', () => {
    expect(inferPaymentStatus({ status: 'cancelled', isCod: false, rawStatus: 'refunded' })).toBe('refunded');
    expect(inferPaymentStatus({ status: 'cancelled', isCod: false, rawStatus: ' WC-Refunded' })).toBe('refunded');
    expect(inferPaymentStatus({ status: 'cancelled', isCod: false, rawStatus: 'wc-failed' })).toBe('failed');
  });

  it('other platform_a slugs follow the order status', () => {
    expect(inferPaymentStatus({ status: 'cancelled', isCod: false, rawStatus: 'wc-cancelled' })).toBe('unpaid');
    expect(inferPaymentStatus({ status: 'confirmed', isCod: false, rawStatus: 'processing' })).toBe('paid');
    expect(inferPaymentStatus({ status: 'pending', isCod: false, rawStatus: null })).toBe('pending');
  });
});

describe('payment method of a copied order', () => {
  it('is cod for cash on delivery and manual otherwise', () => {
    expect(paymentMethodOf({ isCod: true })).toBe('cod');
    expect(paymentMethodOf({ isCod: false })).toBe('manual');
  });
});
