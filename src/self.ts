// How to run this same program again: the compiled binary alone, or bun plus the entry script in development.
export function isCompiled(): boolean {
  return (process.argv[1] ?? "").startsWith("/$bunfs/");
}

export function selfCommand(): string[] {
  return isCompiled() ? [process.execPath] : [process.execPath, process.argv[1]!];
}
