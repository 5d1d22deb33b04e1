// Waiting for something asynchronous to become true, without timed assertions: poll, then report.
import { waitFor } from "../../src/control/daemon-process";

/** Polls `check` until it holds; false when it never did within `ms`. */
export function eventually(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  return waitFor(check, ms, 20);
}
