// Waiting for something asynchronous to become true, without timed assertions: poll, then report.

/** Polls `check` until it holds; false when it never did within `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(20);
  }
  return await check();
}
