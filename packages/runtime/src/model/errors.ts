/** A problem that stops a command from running at all (exit 2): bad usage, a missing file, no config. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
