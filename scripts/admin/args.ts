import { parseArgs } from 'node:util';
import { z } from '../../contract/zod.js';
import { type Command } from './command.js';
import { UsageError } from './errors.js';

export type Invocation = { help: true } | { help: false; command: Command; input: unknown };

/** Finds the command named by the leading words and validates its options; throws UsageError naming the fault. */
export function parseCommandLine(argv: readonly string[], commands: readonly Command[]): Invocation {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-')) break;
    words.push(arg);
  }
  if (words[0] === 'help' || (!words.length && argv.some((a) => a === '--help' || a === '-h'))) return { help: true };
  if (!words.length) throw new UsageError('no command given');
  const command = commands.find((c) => c.name === words.join(' '));
  if (!command) throw new UsageError(`unknown command "${words.join(' ')}"`);
  const rest = argv.slice(words.length);

  let values: Record<string, unknown>;
  try {
    const options = Object.fromEntries(
      Object.entries({ ...command.options, json: 'boolean' as const }).map(([name, type]) => [name, { type }]),
    );
    ({ values } = parseArgs({ args: [...rest], options, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new UsageError((err as Error).message, command);
  }
  delete values.json;
  const parsed = command.input.safeParse(values, { reportInput: true });
  if (!parsed.success) throw new UsageError(parsed.error.issues.map(describeIssue).join('; '), command);
  return { help: false, command, input: parsed.data };
}

/** True when the command line asks for JSON output, whatever else is wrong with it. */
export const wantsJson = (argv: readonly string[]) => argv.includes('--json');

function describeIssue(issue: z.core.$ZodIssue): string {
  const option = issue.path.length ? `--${String(issue.path[0])}` : 'options';
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${option} is required`;
  return `${option} ${issue.message}`;
}

/** A comma-separated list option: items trimmed, empty ones dropped, at least one. */
export const listOption = (what: string) =>
  z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((items) => items.length > 0, `must list at least one ${what}`);

/** An id option (a UUID, as every id here is). */
export const idOption = (what: string) => z.guid({ error: `must be a ${what} id (a UUID)` });
