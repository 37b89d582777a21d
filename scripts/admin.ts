// `npm run --silent admin -- <command> [options] [--json]`: the operator CLI of CONTRACT.md.
// With --json, stdout carries exactly one JSON document on success and nothing on failure.
import { ConfigError, loadConfig } from '../config/env.js';
import { webhookShards } from '../workflows/webhooks/definitions.js';
import { ApiError } from '../contract/errors.js';
import { parseCommandLine, wantsJson } from './admin/args.js';
import { type Command } from './admin/command.js';
import { CommandError, UsageError } from './admin/errors.js';
import { commands } from './admin/commands/index.js';
import { openAdminContext } from './admin/context.js';

const PROGRAM = 'npm run --silent admin --';

async function main(argv: readonly string[]): Promise<number> {
  const json = wantsJson(argv);
  let command: Command | undefined;
  try {
    const invocation = parseCommandLine(argv, commands);
    if (invocation.help) {
      process.stdout.write(json ? `${JSON.stringify({ commands: commands.map(describe) }, null, 2)}\n` : `${usage()}\n`);
      return 0;
    }
    command = invocation.command;
    const config = loadConfig();
    // The dispatcher a delivery waits for is named from the store's shard (WEBHOOK_SHARDS).
    webhookShards.count = config.webhookDispatch.shards;
    const ctx = await openAdminContext(config, { migrates: command.migrates === true });
    try {
      const output = await command.run(ctx, invocation.input);
      process.stdout.write(`${json ? JSON.stringify(output.json, null, 2) : output.text}\n`);
    } finally {
      await ctx.close();
    }
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    if (err instanceof UsageError) {
      const about = err.command ?? command;
      if (!json) process.stderr.write(`\n${about ? `Usage: ${PROGRAM} ${about.name} ${about.usage}\n  ${about.summary}` : usage()}\n`);
      return 2;
    }
    // A service's ApiError is the operator's mistake, like a CommandError: its message says it all.
    if (
      !(err instanceof CommandError || err instanceof ConfigError || err instanceof ApiError) &&
      !json &&
      err instanceof Error &&
      err.stack
    ) {
      process.stderr.write(`${err.stack}\n`);
    }
    return 1;
  }
}

const describe = (c: Command) => ({ command: c.name, usage: `${c.name} ${c.usage}`, summary: c.summary });

function usage(): string {
  return [
    `Usage: ${PROGRAM} <command> [options] [--json]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name} ${c.usage}\n      ${c.summary}`),
    '  help\n      This list.',
    '',
    'Options take a value as --flag value or --flag=value.',
    'Every command accepts --json: exactly one JSON document on stdout, nothing else.',
    'The database is DATABASE_URL, else the embedded PostgreSQL of a running npm start.',
  ].join('\n');
}

process.exitCode = await main(process.argv.slice(2));
