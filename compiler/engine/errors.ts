/**
 * The one error a library function of this layer throws for bad input or a refused cache: a
 * message a user can act on, an exit code and a hint. The CLI prints it as one message (no stack
 * trace) and exits with its code (compiler/cli/main.ts); an engine that calls the loader can show
 * it the same way.
 */
/** A user-facing failure: printed as one message (no stack trace) with the given exit code. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
    readonly help?: string,
  ) {
    super(message);
  }
}

