import { randomBytes } from 'node:crypto';
import { z } from '../../../contract/zod.js';
import { findOwnerByEmail, signUp } from '../../../services/accounts/owners.js';
import { issuePasswordReset, RESET_TTL_SECONDS } from '../../../services/accounts/passwords.js';
import { addOwnerToStore } from '../../../services/accounts/stores.js';
import { idOption } from '../args.js';
import { defineCommand, fields } from '../command.js';
import { CommandError } from '../errors.js';
import { storeExists } from '../../../services/stores.js';

const ownerAdd = defineCommand({
  name: 'owner add',
  usage: '--email E --store ID',
  summary:
    'Lets an account manage a store in the dashboard: a new account gets a password shown only here; an existing one gets a one-time link (72 hours) that gives the store to whoever sets a new password through it.',
  options: { email: 'string', store: 'string' },
  input: z.object({ email: z.string().min(3).max(254), store: idOption('store') }),
  async run({ em, config }, input) {
    if (!(await storeExists(em, input.store))) throw new CommandError(`no store ${input.store}`);
    const existing = await findOwnerByEmail(em, input.email);
    const dashboard = `${config.publicUrl}/dashboard/stores/${input.store}`;
    if (existing) {
      // Anyone can sign up with any address, so an existing account may not be the person the operator
      // means: the store goes to whoever sets a new password through this link (and that ends every
      // session of the account), never straight to the account.
      const { token, expiresAt } = await issuePasswordReset(em, existing.id, { storeId: input.store });
      const inviteUrl = `${config.publicUrl}/dashboard/reset-password/${token}`;
      return {
        json: {
          owner: existing,
          store_id: input.store,
          invite_url: inviteUrl,
          expires_at: expiresAt.toISOString(),
          dashboard_url: dashboard,
        },
        text: `${existing.email} already has an account: hand them this one-time link; the store is theirs once they set a new password through it.\n${fields({ invite_url: inviteUrl, expires_at: expiresAt, dashboard }, '  ')}`,
      };
    }
    const password = randomBytes(12).toString('base64url');
    // A bad email is the service's ApiError, printed as a command error.
    const owner = await signUp(em, input.email, password);
    await addOwnerToStore(em, owner.id, input.store);
    const json = { owner, store_id: input.store, dashboard_url: dashboard, password };
    const text = `Account created; the password is shown only now.\n${fields({ email: owner.email, password, dashboard }, '  ')}`;
    return { json, text };
  },
});

const ownerResetPassword = defineCommand({
  name: 'owner reset-password',
  usage: '--email E',
  summary: `Prints a one-time link (valid ${RESET_TTL_SECONDS / 60} minutes, single use) where the owner sets a new password; hand it to them yourself (this service sends no email).`,
  options: { email: 'string' },
  input: z.object({ email: z.string().min(3).max(254) }),
  async run({ em, config }, input) {
    const owner = await findOwnerByEmail(em, input.email);
    if (!owner) throw new CommandError(`no account with the email ${input.email}`);
    const { token, expiresAt } = await issuePasswordReset(em, owner.id);
    const url = `${config.publicUrl}/dashboard/reset-password/${token}`;
    return {
      json: { url, expires_at: expiresAt.toISOString() },
      text: `A one-time link for ${owner.email} (it works once):\n${fields({ url, expires_at: expiresAt }, '  ')}`,
    };
  },
});

export const ownerCommands = [ownerAdd, ownerResetPassword];
