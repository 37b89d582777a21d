import { describe, expect, it } from 'vitest';
import { chatMessageUrl, orderCreatedMessage, orderShippedMessage, type ChatSender } from '../../domain/chat-message.js';
import { e164Digits } from '../../domain/chat-phone.js';
import { chatMessagesAllowed } from '../../domain/plan.js';

const sender: ChatSender = {
  baseUrl: 'https://graph.facebook.com/',
  apiVersion: 'v23.0',
  phoneNumberId: '106540352242922',
  templateName: 'order_created',
  templateLanguage: 'en_US',
  shippedTemplateName: null,
};

describe('the shopper phone as E.164 digits', () => {
  it('reads international numbers written with + or 00, spaces, dashes, dots and brackets', () => {
    expect(e164Digits('+212 600-000 100')).toBe('212600000100');
    expect(e164Digits('00212600000100')).toBe('212600000100');
    expect(e164Digits('+1 (415) 555.0100')).toBe('14155550100');
  });
  it('does not guess a country for local numbers, and refuses what is not a phone', () => {
    for (const phone of ['0612345678', '612345678', '+0612345678', '+12', '+1234567890123456', 'call me', '', null, undefined])
      expect(e164Digits(phone), String(phone)).toBeNull();
  });
});

describe('the WhatsApp Cloud API message', () => {
  it('is posted to {base_url}/{api_version}/{phone_number_id}/messages', () => {
    expect(chatMessageUrl(sender)).toBe('https://graph.facebook.com/v23.0/106540352242922/messages');
  });
  it('is a template with the order number and total as body parameters when the store names one, else text', () => {
    const order = { number: '#1042', total: '250.00 MAD', storeName: 'Atlas' };
    expect(orderCreatedMessage(sender, '212600000100', order)).toMatchObject({
      messaging_product: 'whatsapp',
      to: '212600000100',
      type: 'template',
      template: {
        name: 'order_created',
        language: { code: 'en_US' },
        components: [{ type: 'body', parameters: [{ text: '#1042' }, { text: '250.00 MAD' }] }],
      },
    });
    expect(orderCreatedMessage({ ...sender, templateName: null }, '212600000100', order)).toMatchObject({
      type: 'text',
      text: { preview_url: false, body: 'Atlas: we received your order #1042 (250.00 MAD). Reply here to confirm it.' },
    });
  });
});

describe('the shipped message', () => {
  it('is the shipped template with the order number and tracking page, or nothing without that template', () => {
    const order = { number: '#1042', trackingUrl: 'https://shop.example/track/1' };
    expect(orderShippedMessage({ ...sender, shippedTemplateName: 'order_shipped' }, '212600000100', order)).toMatchObject({
      type: 'template',
      template: { name: 'order_shipped', components: [{ parameters: [{ text: '#1042' }, { text: 'https://shop.example/track/1' }] }] },
    });
    expect(orderShippedMessage(sender, '212600000100', order)).toBeNull();
  });
});

describe('plan extras', () => {
  it('chat order messages are for paid plans only', () => {
    expect(chatMessagesAllowed({ plan: 'paid', paidUntil: null })).toBe(true);
    expect(chatMessagesAllowed({ plan: 'free', paidUntil: null })).toBe(false);
    // An ended paid plan counts as free even before its timer writes the fall back.
    expect(chatMessagesAllowed({ plan: 'paid', paidUntil: '2026-01-01T00:00:00Z' }, Date.parse('2026-01-02T00:00:00Z'))).toBe(false);
    expect(chatMessagesAllowed({ plan: 'paid', paidUntil: '2026-01-03T00:00:00Z' }, Date.parse('2026-01-02T00:00:00Z'))).toBe(true);
  });
});
