/** Exit codes: 0 success, 1 the operation failed, 2 the command was used wrongly, 3 nothing found. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}
