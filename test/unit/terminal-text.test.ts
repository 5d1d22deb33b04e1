// Readable output shows control and bidi characters as escapes: text from memories and tools cannot
// drive the terminal (cursor moves, screen clears, OSC 52 clipboard writes) or reorder what is shown.
import { describe, expect, test } from "bun:test";
import { renderAnalytics } from "../../src/cli/mcp-analytics";
import { textTable } from "../../src/cli/table";
import { terminalText } from "../../src/cli/terminal-text";

describe("terminalText", () => {
  test("escape sequences are shown, never sent: OSC 52, CSI, bell", () => {
    const text = "before\u001b]52;c;ZXZpbA==\u0007 \u001b[2J\u001b[1;1Hafter";
    expect(terminalText(text)).toBe("before\\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J\\x1b[1;1Hafter");
  });

  test("every C0 control but tab and newline, DEL and every C1 control are escaped", () => {
    const controls = [...Array.from({ length: 0x20 }, (_, i) => i), 0x7f, ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i)];
    for (const code of controls) {
      const char = String.fromCharCode(code);
      const kept = char === "\n" || char === "\t";
      expect(terminalText(`a${char}b`)).toBe(kept ? `a${char}b` : `a\\x${code.toString(16).padStart(2, "0")}b`);
    }
    expect(terminalText("line\r\nnext")).toBe("line\\x0d\nnext");
  });

  test("bidi embeddings, overrides and isolates are escaped; other text is untouched", () => {
    expect(terminalText("a\u202ab\u202ec\u2066d\u2069e")).toBe("a\\u202ab\\u202ec\\u2066d\\u2069e");
    const plain = "Prefer tabs — naïve café 日本語 🎉 \u00a0\u200d ¡ÿ \\x1b as typed";
    expect(terminalText(plain)).toBe(plain);
  });

  test("one line: tabs and newlines are escaped too; escaping twice changes nothing", () => {
    expect(terminalText("a\tb\nc", { oneLine: true })).toBe("a\\x09b\\x0ac");
    const once = terminalText("x\u001b[31m\u202e\r", { oneLine: true });
    expect(terminalText(once, { oneLine: true })).toBe(once);
  });
});

describe("tables", () => {
  test("cells are escaped before they are measured, so columns stay aligned", () => {
    expect(textTable(["name", "n"], [["a\u001b[2Jb", "1"], ["x\ny", "22"]], ["l", "r"])).toBe(
      ["name        n", "a\\x1b[2Jb   1", "x\\x0ay     22"].join("\n"),
    );
  });

  test("analytics tables show a tool or agent named with escapes as text", () => {
    const out = renderAnalytics({
      totalCalls: 1,
      successCount: 1,
      failureCount: 0,
      failureRate: 0,
      latency: { p50: 5, p95: 5 },
      topServers: [{ server: "s", calls: 1, failures: 0, p50: 5, p95: 5 }],
      topTools: [{ server: "s", tool: "t\u001b]52;c;ZXZpbA==\u0007", calls: 1, successCount: 1, failureCount: 0, p50: 5, p95: 5 }],
      agents: [{ agentId: "a\u202e", calls: 1, failures: 0 }],
      timeline: [],
    } as any);
    expect(out).not.toContain("\u001b");
    expect(out).not.toContain("\u202e");
    expect(out).toContain("s/t\\x1b]52;c;ZXZpbA==\\x07");
  });
});
