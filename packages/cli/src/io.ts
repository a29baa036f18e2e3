// The streams a command writes to, injected so tests run commands in-process.
export interface CommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (for `-f -`). */
  stdin(): string;
}
