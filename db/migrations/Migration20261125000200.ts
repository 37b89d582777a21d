import { Migration } from '@mikro-orm/migrations';

/**
 * Order notifications (docs/notifications.md): mobile push to store owners and chat order messages to
 * shoppers. `vapid_keys` holds the service's one VAPID key pair (the private key sealed with SECRETS_KEY);
 * `push_subscriptions` the owners' devices per store; `chat_settings` a store's chat sender (the token
 * sealed); `order_messages` one row per order, channel and occasion: its unique key makes a message go
 * out at most once, and its status is what the dashboard shows.
 */
export class Migration20261125000200 extends Migration {
  override name = 'Migration20261125000200';

  override async up(): Promise<void> {
    this.addSql(`create table vapid_keys (
      id smallint primary key check (id = 1),
      public_key text not null,
      private_key_sealed text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table push_subscriptions (
      id uuid primary key,
      store_id uuid not null references stores (id) on delete cascade,
      owner_id uuid not null references owners (id) on delete cascade,
      endpoint text not null,
      p256dh text not null,
      auth text not null,
      created_at timestamptz not null default now(),
      unique (store_id, endpoint)
    )`);
    this.addSql(`create table chat_settings (
      store_id uuid primary key references stores (id) on delete cascade,
      enabled boolean not null default false,
      base_url text not null,
      api_version text not null,
      phone_number_id text not null,
      token_sealed text not null,
      template_name text null,
      template_language text not null default 'en_US',
      shipped_template_name text null,
      updated_at timestamptz not null default now()
    )`);
    this.addSql(`create table order_messages (
      id bigserial primary key,
      store_id uuid not null,
      order_id uuid not null,
      channel text not null check (channel in ('push', 'chat')),
      occasion text not null,
      status text not null check (status in ('sending', 'sent', 'failed', 'skipped')),
      detail text null,
      created_at timestamptz not null default now(),
      finished_at timestamptz null,
      unique (order_id, channel, occasion)
    )`);
    // The delivery sweep's look for attempts a dead worker cut off.
    this.addSql(`create index order_messages_sending_index on order_messages (created_at) where status = 'sending'`);
  }
}
