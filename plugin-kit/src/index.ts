// @store-commerce/plugin-kit: the connection protocol's pieces a plugin needs, with no service code. The HTTP client,
// the Update type and the push-signature check are the SDK's (@store-commerce/sdk), re-exported here.
export * from './protocol.js';
export { pushSignature, signPush } from './signature.js';
export { verifyPushedUpdates, WebhookVerificationError, type PushedUpdates } from '@store-commerce/sdk';
export {
  ConnectStates,
  PendingConnects,
  connectUrl,
  readConnectReturn,
  type ConnectedStore,
  type ConnectReturn,
  type ConnectUrlInput,
} from './connect.js';
export { ServiceClient, type Answer, type ExchangeResult, type Heartbeat } from './client.js';
export { applyUpdates, type AppliedLedger, type ApplyOne } from './apply.js';
export { handlePush, pushListener, readRawBody, type PushReceiverOptions, type PushReply } from './push.js';
export { pullOnce, startPulling } from './pull.js';
