import { z } from '../../../contract/zod.js';
import { migrate, pendingMigrations } from '../../../db/orm.js';
import { defineCommand } from '../command.js';

/** `migrate`: the only command besides `npm start` that changes the schema; every other command refuses a schema behind the code. */
const migrateCommand = defineCommand({
  name: 'migrate',
  usage: '',
  summary: 'Applies the database migrations this version needs (npm start does it too; no other command does).',
  options: {},
  input: z.object({}),
  migrates: true,
  async run({ databaseUrl }) {
    const pending = await pendingMigrations(databaseUrl);
    await migrate(databaseUrl);
    return {
      json: { applied: pending },
      text: pending.length
        ? `applied ${pending.length} migration(s):\n${pending.map((m) => `  ${m}`).join('\n')}`
        : 'the schema is up to date',
    };
  },
});

export const migrateCommands = [migrateCommand];
