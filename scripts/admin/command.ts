import type { z } from '../../contract/zod.js';
import type { AdminContext } from './context.js';

/** What a command hands back: one JSON document for --json, and the same facts for people. */
export interface Output {
  json: unknown;
  text: string;
}

/** One operator command: its words, its options, a zod schema over the option values, and what it does. */
export interface Command<S extends z.ZodType = z.ZodType> {
  /** The command words, e.g. `store create`. */
  name: string;
  /** The options after the words, as shown in the usage, e.g. `--name N [--plan free|paid]`. */
  usage: string;
  summary: string;
  /** Option types for node:util parseArgs; --json is added to every command. */
  options: Record<string, 'string' | 'boolean'>;
  /** Validates and converts the parsed option values (kebab-case keys, as typed). */
  input: S;
  /** Only `migrate`: the command brings the schema up itself; every other one refuses a schema behind the code. */
  migrates?: true;
  run(ctx: AdminContext, input: z.output<S>): Promise<Output>;
}

/** Keeps the link between a command's schema and its run() typed. */
export const defineCommand = <S extends z.ZodType>(command: Command<S>): Command => command as unknown as Command;

/** Aligned `label: value` lines; null and empty values show as `-`. */
export function fields(record: Record<string, unknown>, indent = ''): string {
  const width = Math.max(...Object.keys(record).map((k) => k.length)) + 1;
  return Object.entries(record)
    .map(([k, v]) => `${indent}${`${k}:`.padEnd(width)} ${show(v)}`)
    .join('\n');
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '-';
  if (value instanceof Date) return value.toISOString();
  return String(value);
}
