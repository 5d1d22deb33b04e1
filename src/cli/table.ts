// Plain-text tables for readable CLI output: columns padded to their widest cell.
import { terminalText } from "./terminal-text";

/** `head` and `rows` aligned in columns two spaces apart; "r" columns are right-aligned (numbers). */
export function textTable(head: string[], rows: string[][], align: ("l" | "r")[] = []): string {
  // Cells are made safe before they are measured, so their escapes keep the columns aligned.
  const safe = rows.map((r) => r.map((c) => terminalText(c, { oneLine: true })));
  const widths = head.map((h, i) => Math.max(h.length, ...safe.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (align[i] === "r" ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(head), ...safe.map(line)].join("\n");
}
