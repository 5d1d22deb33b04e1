// Text shown on a terminal comes from memories, tools and servers, none of them trusted: a raw
// control character would let it move the cursor, clear the screen, retitle the window or write
// the clipboard (OSC 52), and a bidi control would reorder what the reader sees. Every readable
// rendering goes through `terminalText`, which shows such characters as escapes instead, and JSON
// output through `terminalJson`, which escapes them the JSON way.

// DEL, the C1 controls (U+009B alone starts a control sequence on many terminals), and the bidi
// marks, embeddings, overrides and isolates.
const C1_AND_BIDI = "\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";
// The same plus the C0 controls but tab and newline.
const UNSAFE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${C1_AND_BIDI}]`, "g");
// The same plus tab and newline, for text that must stay on one line (a table cell).
const UNSAFE_IN_LINE = new RegExp(`[\\u0000-\\u001f${C1_AND_BIDI}]`, "g");
// JSON.stringify escapes C0 controls itself; these it writes raw.
const UNSAFE_IN_JSON = new RegExp(`[${C1_AND_BIDI}]`, "g");

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

const jsonEscape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** `text` safe to print: control and bidi characters as `\x1b` / `\u202e`; tabs and newlines kept unless `oneLine`. */
export function terminalText(text: string, opts: { oneLine?: boolean } = {}): string {
  return text.replace(opts.oneLine ? UNSAFE_IN_LINE : UNSAFE, escape);
}

/**
 * `value` as JSON with no raw control or bidi character: the ones JSON.stringify leaves raw become
 * `\u009b` escapes. They occur only inside strings, so the text stays valid JSON and parses to the
 * same value.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, jsonEscape);
}
