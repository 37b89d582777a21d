// @store-commerce/plugin-kit: the connection protocol's pieces a plugin needs, with no service code.
export * from './protocol.js';
export { pushSignature, signPush, verifyPush, type PushCheck } from './signature.js';
export { ConnectStates, connectUrl, readConnectReturn, type ConnectReturn, type ConnectUrlInput } from './connect.js';
export { ServiceClient, type ExchangeResult, type Heartbeat } from './client.js';
export { applyUpdates, type AppliedLedger, type ApplyOne } from './apply.js';
export { handlePush, pushListener, readRawBody, type PushReceiverOptions, type PushReply } from './push.js';
export { pullOnce, startPulling } from './pull.js';
