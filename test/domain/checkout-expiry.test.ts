import { describe, expect, it } from 'vitest';
import { expiryBucketSeconds } from '../../domain/checkout-expiry.js';

describe('checkout-expiry buckets', () => {
  it('are a sixtieth of the session lifetime, between 1 s and 60 s', () => {
    expect(expiryBucketSeconds(86_400)).toBe(60);
    expect(expiryBucketSeconds(3600)).toBe(60);
    expect(expiryBucketSeconds(600)).toBe(10);
    expect(expiryBucketSeconds(120)).toBe(2);
    expect(expiryBucketSeconds(2)).toBe(1);
    expect(expiryBucketSeconds(1)).toBe(1);
  });
});
