/** What a store's chat sender is (docs/notifications.md): the WhatsApp Cloud API message endpoint and its sender. */
export interface ChatSender {
  baseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  /** The template a business-initiated message needs; null sends plain text (only reaches a shopper who wrote first). */
  templateName: string | null;
  templateLanguage: string;
}

export interface ChatOrder {
  /** The number the shopper knows: the order number, else the outside number. */
  number: string;
  /** The total as the shopper reads it, e.g. "250.00 MAD". */
  total: string;
  storeName: string;
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
  const common = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  if (sender.templateName)
    return {
      ...common,
      type: 'template',
      template: {
        name: sender.templateName,
        language: { code: sender.templateLanguage },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: order.number },
              { type: 'text', text: order.total },
            ],
          },
        ],
      },
    };
  return {
    ...common,
    type: 'text',
    text: {
      preview_url: false,
      body: `${order.storeName}: we received your order ${order.number} (${order.total}). Reply here to confirm it.`,
    },
  };
}
