import { createHmac } from 'node:crypto';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from './protocol.js';

// The check a plugin runs is the SDK's verifyPushedUpdates (re-exported by the kit); this is the service's
// side of the signature, for the conformance check and for a plugin's own tests.

/** X-Service-Signature for a push: `sha256=` + hex HMAC-SHA256(secret, `timestamp + "." + raw body`). */
export function pushSignature(secret: string, timestamp: number | string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** The two headers the service sends with a push body, signed now (or at `timestamp`). */
export function signPush(secret: string, rawBody: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'content-type': 'application/json',
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: pushSignature(secret, timestamp, rawBody),
  };
}
