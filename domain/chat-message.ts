/** What a store's chat sender is (docs/notifications.md): the WhatsApp Cloud API message endpoint and its sender. */
export interface ChatSender {
  baseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  /** The template a business-initiated message needs; null sends plain text (only reaches a shopper who wrote first). */
  templateName: string | null;
  templateLanguage: string;
  /** The template of the message sent when the order ships; null sends none. */
  shippedTemplateName: string | null;
}

export interface ChatOrder {
  /** The number the shopper knows: the order number, else the outside number. */
  number: string;
  /** The total as the shopper reads it, e.g. "250.00 MAD". */
  total: string;
  storeName: string;
}

/** A template message to `to` with text body parameters {{1}}, {{2}}, … in order. */
function templateMessage(to: string, name: string, language: string, texts: string[]): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to,
    type: 'template',
    template: {
      name,
      language: { code: language },
      components: [{ type: 'body', parameters: texts.map((text) => ({ type: 'text', text })) }],
    },
  };
}

/** The message endpoint: POST {base_url}/{api_version}/{phone_number_id}/messages. */
export function chatMessageUrl(sender: ChatSender): string {
  const base = sender.baseUrl.replace(/\/+$/, '');
  return `${base}/${encodeURIComponent(sender.apiVersion)}/${encodeURIComponent(sender.phoneNumberId)}/messages`;
}

/**
 * The body of an "order created" message to `to` (E.164 digits): a template with the order number and
 * total as its body parameters {{1}} and {{2}} when the store named one, else a text message.
 */
export function orderCreatedMessage(sender: ChatSender, to: string, order: ChatOrder): Record<string, unknown> {
  if (sender.templateName) return templateMessage(to, sender.templateName, sender.templateLanguage, [order.number, order.total]);
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to,
    type: 'text',
    text: {
      preview_url: false,
      body: `${order.storeName}: we received your order ${order.number} (${order.total}). Reply here to confirm it.`,
    },
  };
}

/**
 * The body of an "order shipped" message: the store's shipped template with the order number {{1}} and
 * the order's tracking page {{2}}; null when the store named no such template (then none is sent).
 */
export function orderShippedMessage(sender: ChatSender, to: string, order: { number: string; trackingUrl: string }) {
  return sender.shippedTemplateName
    ? templateMessage(to, sender.shippedTemplateName, sender.templateLanguage, [order.number, order.trackingUrl])
    : null;
}
