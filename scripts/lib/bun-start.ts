// The floor of the whole-process timings (bench-mcp.ts, bench-bridge.ts): Bun's own start and exit.

/** The wall time of one `bun -e 0`, spawn to exit, in ms. */
export async function bunStartMs(): Promise<number> {
  const t0 = performance.now();
  await Bun.spawn([process.execPath, "-e", "0"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" }).exited;
  return performance.now() - t0;
}
