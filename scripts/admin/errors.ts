/** What a usage message needs of a command. */
export interface CommandUsage {
  name: string;
  usage: string;
  summary: string;
}

/** A wrong command line: exit 2, with the usage of the command when it is known. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: CommandUsage,
  ) {
    super(message);
  }
}
/** A well-formed command that cannot be carried out (unknown id, …): exit 1. */
export class CommandError extends Error {}
