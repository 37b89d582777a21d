import { openingKeys, targetPolicy } from '../../config/env.js';
import { orderTrackingPageUrl } from '../../contract/urls.js';
import { chatMessageUrl, orderCreatedMessage, orderShippedMessage } from '../../domain/chat-message.js';
import { e164Digits } from '../../domain/chat-phone.js';
import { chatMessagesAllowed } from '../../domain/plan.js';
import { loadChatSender } from '../../services/notifications/chat-settings.js';
import {
  CHAT_MESSAGES_PER_STORE_PER_HOUR,
  claimOrderMessage,
  finishOrderMessage,
  recentChatMessages,
} from '../../services/notifications/order-messages.js';
import { orderFacts } from '../../services/notifications/order-facts.js';
import { postOnce } from '../../services/outbound/send.js';
import type { OrderNotificationInput, OrderNotificationResult } from '../../workflows/notifications/definitions.js';
import type { ActivityDeps } from '../deps.js';

const USER_AGENT = 'StoreCommerce-Chat/1.0';

/** The chat messages to the shopper, when the order is created and when it ships (WhatsApp Cloud API message endpoint). */
export function orderChatActivities(deps: ActivityDeps) {
  return {
    /**
     * Claims the order's chat message, then makes one attempt: a POST with the store's bearer token to its
     * message endpoint (outbound rules of webhooks). Skipped, with the reason recorded, when the store's
     * plan does not allow it, chat is off (or, when the order shipped, it has no template for that), or the
     * shopper has no phone in international form. Runs on one of the store's outbound turns
     * (deps.outboundBudget); an endpoint that gave no answer lately is not tried while it cools down.
     */
    async sendOrderChat(input: OrderNotificationInput): Promise<OrderNotificationResult> {
      return deps.outboundBudget ? deps.outboundBudget.run(input.storeId, () => chatOnce(deps, input)) : chatOnce(deps, input);
    },
  };
}

/** The chat message of one order and occasion (claimed once). */
async function chatOnce(deps: ActivityDeps, input: OrderNotificationInput): Promise<OrderNotificationResult> {
  const em = deps.orm.em.fork();
  const occasion = input.occasion ?? 'created';
  const claim = await claimOrderMessage(em, { storeId: input.storeId, orderId: input.orderId, channel: 'chat', occasion });
  if (!claim) return { status: 'already_claimed', detail: `this order’s ${occasion} chat message was already attempted` };
  const finish = async (status: 'sent' | 'failed' | 'skipped', detail: string) => {
    await finishOrderMessage(em, claim, status, detail);
    return { status, detail };
  };
  const facts = await orderFacts(em, input.storeId, input.orderId);
  if (!facts) return finish('skipped', 'the order no longer exists');
  if (!chatMessagesAllowed(facts)) return finish('skipped', 'chat order messages are for paid plans only');
  const sender = await loadChatSender(em, input.storeId, openingKeys(deps.config));
  if (!sender) return finish('skipped', 'chat order messages are turned off');
  const to = e164Digits(facts.customerPhone);
  if (!to) return finish('skipped', 'the shopper’s phone is missing or not in international form (+ and country code)');
  const message =
    occasion === 'created'
      ? orderCreatedMessage(sender, to, { number: facts.number, total: facts.total, storeName: facts.storeName })
      : orderShippedMessage(sender, to, { number: facts.number, trackingUrl: orderTrackingPageUrl(deps.config, input.orderId) });
  if (!message) return finish('skipped', 'no template is set for shipped orders');
  if ((await recentChatMessages(em, input.storeId, claim)) >= CHAT_MESSAGES_PER_STORE_PER_HOUR)
    return finish('skipped', `the store reached its limit of ${CHAT_MESSAGES_PER_STORE_PER_HOUR} chat messages an hour`);
  const url = chatMessageUrl(sender);
  if (deps.circuit?.isOpen(`${input.storeId} ${url}`))
    return finish('failed', 'skipped: the chat message endpoint gave no answer lately (tried again after a minute)');
  const result = await postOnce({
    url,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${sender.token}`, 'user-agent': USER_AGENT },
    body: JSON.stringify(message),
    timeoutMs: deps.config.webhookTimeoutMs,
    policy: targetPolicy(deps.config),
    keepReplyBytes: 400,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  });
  deps.circuit?.record(`${input.storeId} ${url}`, result.status !== null);
  const template = message.type === 'template' ? (message.template as { name: string }).name : null;
  if (result.ok) return finish('sent', `sent to +${to} (${template ? `template ${template}` : 'text'})`);
  return finish('failed', `${result.error ?? 'failed'}${result.reply ? `: ${result.reply.replace(/\s+/g, ' ').slice(0, 300)}` : ''}`);
}
