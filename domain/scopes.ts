/** The spec's permissions (scopes) and which kind of key may hold each one. */
export const SCOPES = [
  'orders:read',
  'orders:write',
  'products:read',
  'products:write',
  'checkout:write',
  'tracking:read',
  'webhooks:write',
  'connection:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

/** True for a scope the spec names (api_keys.scopes is text[]: the database does not hold it to the list). */
export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** "On by default for a new secret key" column of the permission table. */
export const DEFAULT_SECRET_SCOPES: readonly Scope[] = ['orders:read', 'orders:write', 'products:read', 'checkout:write', 'tracking:read'];

/** A secret key may be given anything but connection:manage, which only a connection key holds. */
export const GRANTABLE_SECRET_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'connection:manage');

/** "May a publishable key hold it": yes for these three only; all three by default. */
export const PUBLISHABLE_SCOPES: readonly Scope[] = ['products:read', 'checkout:write', 'tracking:read'];

/** Legacy keys are fixed to these two. */
export const LEGACY_SCOPES: readonly Scope[] = ['orders:read', 'webhooks:write'];

/** "Held by a connection key" column. */
export const CONNECTION_SCOPES: readonly Scope[] = ['orders:read', 'orders:write', 'products:write', 'tracking:read', 'connection:manage'];

export type KeyKindInput = 'secret' | 'publishable' | 'legacy';

/** Scopes a new key of this kind gets: the requested ones if allowed, else the defaults. Throws on a forbidden scope. */
export function scopesForNewKey(kind: KeyKindInput, requested?: readonly string[]): Scope[] {
  if (kind === 'legacy') {
    if (requested?.some((s) => !LEGACY_SCOPES.includes(s as Scope))) {
      throw new RangeError('legacy keys always hold exactly orders:read and webhooks:write');
    }
    return [...LEGACY_SCOPES];
  }
  const allowed = kind === 'publishable' ? PUBLISHABLE_SCOPES : GRANTABLE_SECRET_SCOPES;
  const defaults = kind === 'publishable' ? PUBLISHABLE_SCOPES : DEFAULT_SECRET_SCOPES;
  if (!requested) return [...defaults];
  const bad = requested.filter((s) => !allowed.includes(s as Scope));
  if (bad.length) throw new RangeError(`a ${kind} key may not hold ${bad.join(', ')}`);
  return SCOPES.filter((s) => requested.includes(s));
}
