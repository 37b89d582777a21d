import { z } from '../../../contract/zod.js';
import { openingKeys } from '../../../config/env.js';
import { resealSecrets } from '../../../services/secrets-rotation.js';
import { defineCommand } from '../command.js';
import { CommandError } from '../errors.js';

const secretsReseal = defineCommand({
  name: 'secrets reseal',
  usage: '',
  summary:
    'Rotating SECRETS_KEY: seals every stored signing secret that only SECRETS_KEY_PREVIOUS opens again with SECRETS_KEY (run with both set, after every process runs with both); then SECRETS_KEY_PREVIOUS can go. Running it twice changes nothing.',
  options: {},
  input: z.object({}),
  async run({ config, em }) {
    if (!config.secretsKey) throw new CommandError('set SECRETS_KEY to the new key (and SECRETS_KEY_PREVIOUS to the one it replaces)');
    const { resealed, unreadable } = await resealSecrets(em, openingKeys(config));
    const text = [
      `Sealed again with SECRETS_KEY: ${resealed.webhook_endpoints} webhook endpoint secret(s), ${resealed.connections} connection secret(s).`,
      unreadable
        ? `${unreadable} secret(s) open with neither key: left as they are (their endpoints or shops need a new secret).`
        : 'Every stored secret opens with SECRETS_KEY now: SECRETS_KEY_PREVIOUS may be removed.',
    ].join('\n');
    return { json: { resealed, unreadable }, text };
  },
});

export const secretsCommands = [secretsReseal];
