// Plain-text tables for readable CLI output: columns padded to their widest cell.

/** `head` and `rows` aligned in columns two spaces apart; "r" columns are right-aligned (numbers). */
export function textTable(head: string[], rows: string[][], align: ("l" | "r")[] = []): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (align[i] === "r" ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}
