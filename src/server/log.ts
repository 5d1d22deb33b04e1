// Daemon log lines: one line each, UTC timestamp first, to stderr (the log file when started in the background).
export type LogLevel = "info" | "warn" | "error";

export function log(level: LogLevel, message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${level.padEnd(5)} ${message}\n`);
}
