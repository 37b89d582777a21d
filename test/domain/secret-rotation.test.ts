import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSecret, openSecretWith, sealSecret } from '../../domain/secret-box.js';

const current = randomBytes(32);
const previous = randomBytes(32);

describe('opening secrets while SECRETS_KEY is rotated', () => {
  it('a secret sealed with the previous key opens with [current, previous], and says which key did', () => {
    const sealed = sealSecret(previous, 'whsec_old');
    expect(openSecret([current, previous], sealed)).toBe('whsec_old');
    expect(openSecretWith([current, previous], sealed)).toEqual({ plain: 'whsec_old', keyIndex: 1 });
    expect(openSecretWith([current, previous], sealSecret(current, 'whsec_new'))).toEqual({ plain: 'whsec_new', keyIndex: 0 });
  });

  it('a key that did not seal it does not open it, alone or in a list', () => {
    const sealed = sealSecret(previous, 'whsec_old');
    expect(() => openSecret(current, sealed)).toThrow(/no SECRETS_KEY opens this secret/);
    expect(() => openSecret([current, randomBytes(32)], sealed)).toThrow();
    expect(() => openSecret([], sealed)).toThrow();
  });

  it('an altered secret opens with no key', () => {
    const sealed = sealSecret(current, 'whsec_x');
    const altered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => openSecret([current, previous], altered)).toThrow();
  });
});
