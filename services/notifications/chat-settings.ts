import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { ApiError } from '../../contract/errors.js';
import type { TargetPolicy } from '../../domain/address-check.js';
import type { ChatSender } from '../../domain/chat-message.js';
import { openSecret, sealSecret } from '../../domain/secret-box.js';
import { checkTarget, type Resolver } from '../outbound/target.js';
import type { ChatSettingsRow } from '../../db/tables/chat-settings.js';

export const DEFAULT_CHAT_BASE_URL = 'https://graph.facebook.com';
export const DEFAULT_CHAT_API_VERSION = 'v23.0';

/** A store's chat sender as the dashboard shows it: never the token, only whether one is stored. */
export interface ChatSettingsView extends ChatSender {
  enabled: boolean;
  hasToken: boolean;
}

export interface ChatSettingsInput {
  enabled: boolean;
  baseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  /** Empty keeps the stored token. */
  token: string;
  templateName: string;
  templateLanguage: string;
  /** Empty sends no message when orders ship. */
  shippedTemplateName: string;
}

const sender = (r: ChatSettingsRow): ChatSender => ({
  baseUrl: r.base_url,
  apiVersion: r.api_version,
  phoneNumberId: r.phone_number_id,
  templateName: r.template_name,
  templateLanguage: r.template_language,
  shippedTemplateName: r.shipped_template_name,
});

const read = async (em: EntityManager, storeId: string) =>
  (await executeBound<ChatSettingsRow>(em, `select * from chat_settings where store_id = ?`, [storeId]))[0] ?? null;

/** The store's chat settings without the token; null when it never saved any. */
export async function readChatSettings(em: EntityManager, storeId: string): Promise<ChatSettingsView | null> {
  const row = await read(em, storeId);
  return row ? { ...sender(row), enabled: row.enabled, hasToken: true } : null;
}

/** The sender and its token in clear (the sending activity only); null when chat messages are off. */
export async function loadChatSender(
  em: EntityManager,
  storeId: string,
  keys: readonly Buffer[],
): Promise<(ChatSender & { token: string }) | null> {
  const row = await read(em, storeId);
  return row?.enabled ? { ...sender(row), token: openSecret(keys, row.token_sealed) } : null;
}

/**
 * Saves the store's chat sender: the base URL must pass the outbound-address rules of webhooks (checked
 * now and again at every send), the token is stored sealed with SECRETS_KEY and never shown again.
 */
export async function saveChatSettings(
  em: EntityManager,
  storeId: string,
  input: ChatSettingsInput,
  opts: { secretsKey: Buffer; policy: TargetPolicy; resolve?: Resolver },
): Promise<void> {
  const target = await checkTarget(input.baseUrl, opts.policy, opts.resolve);
  if (!target.ok) throw new ApiError('invalid_request', `Base URL: ${target.reason}.`, 'base_url');
  if (!/^v\d+(\.\d+)?$/.test(input.apiVersion)) throw new ApiError('invalid_request', 'API version: like v23.0.', 'api_version');
  if (!/^\d{5,30}$/.test(input.phoneNumberId)) throw new ApiError('invalid_request', 'Phone number id: digits only.', 'phone_number_id');
  for (const [field, name, words] of [
    ['template_name', input.templateName, 'Template name'],
    ['shipped_template_name', input.shippedTemplateName, 'Template for shipped orders'],
  ] as const)
    if (name && !/^[a-z0-9_]{1,512}$/.test(name))
      throw new ApiError('invalid_request', `${words}: lower-case letters, digits and _ only.`, field);
  if (!/^[a-z]{2,3}(_[A-Z]{2})?$/.test(input.templateLanguage))
    throw new ApiError('invalid_request', 'Template language: a code like en_US or fr.', 'template_language');
  if (/[\s]/.test(input.token) || input.token.length > 2000)
    throw new ApiError('invalid_request', 'Access token: one word, no spaces.', 'token');
  const existing = await read(em, storeId);
  if (!input.token && !existing) throw new ApiError('invalid_request', 'Access token: required.', 'token');
  const sealed = input.token ? sealSecret(opts.secretsKey, input.token) : existing!.token_sealed;
  await executeBound(
    em,
    `insert into chat_settings (store_id, enabled, base_url, api_version, phone_number_id, token_sealed, template_name, template_language,
       shipped_template_name)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (store_id) do update set enabled = excluded.enabled, base_url = excluded.base_url, api_version = excluded.api_version,
       phone_number_id = excluded.phone_number_id, token_sealed = excluded.token_sealed, template_name = excluded.template_name,
       template_language = excluded.template_language, shipped_template_name = excluded.shipped_template_name, updated_at = now()`,
    [
      storeId,
      input.enabled,
      target.url.toString().replace(/\/+$/, ''),
      input.apiVersion,
      input.phoneNumberId,
      sealed,
      input.templateName || null,
      input.templateLanguage,
      input.shippedTemplateName || null,
    ],
  );
}
