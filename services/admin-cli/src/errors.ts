/** A mistake by the person at the keyboard: printed as one line, never with a stack trace. */
export class UserError extends Error {
  constructor(
    message: string,
    /** The process exit code: 2 for a bad invocation, 1 for a request the data refuses. */
    readonly exitCode: 1 | 2,
  ) {
    super(message);
  }
}

/** A bad argument or option (exit code 2). */
export class UsageError extends UserError {
  override readonly name = "UsageError";
  constructor(message: string) {
    super(message, 2);
  }
}

/** A well-formed request the data refuses: unknown account or key, duplicate, balance below zero (exit code 1). */
export class CommandError extends UserError {
  override readonly name = "CommandError";
  constructor(message: string) {
    super(message, 1);
  }
}
