// A logger for tests: keeps `<level> <message>` lines to assert on instead of writing them.
import type { Logger } from "../../src/logger";

export function recordingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { log: { info: at("info"), warn: at("warn"), error: at("error") }, lines };
}
