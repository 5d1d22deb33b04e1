export async function runStdioServer(): Promise<number> {
  return 0;
}
