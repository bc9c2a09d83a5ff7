/** Exit codes: 0 success, 1 the operation failed, 2 the command was used wrongly, 3 nothing found. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3 } as const;

/**
 * An error whose message is meant for the user as it stands, with the exit code the command line ends with.
 * It lives in the core because the core throws it (`ConfigError`); the CLI knows it as `CliError`. The CLI
 * prints its message on one line, a newline or an escape in a path or id it names shown as U+FFFD; `lines`:
 * its maker laid it out in lines and made each field printable itself (a list of candidates).
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
    readonly lines = false,
  ) {
    super(message);
  }
}
