// Text shown on a terminal comes from memories, tools and servers, none of them trusted: a raw
// control character would let it move the cursor, clear the screen, retitle the window or write
// the clipboard (OSC 52), and a bidi override would reorder what the reader sees. Every readable
// rendering goes through `terminalText`, which shows such characters as escapes instead.

// C0 controls but tab and newline, DEL, C1 controls, and the bidi embeddings, overrides and isolates.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// The same plus tab and newline, for text that must stay on one line (a table cell).
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` safe to print: control and bidi characters as `\x1b` / `\u202e`; tabs and newlines kept unless `oneLine`. */
export function terminalText(text: string, opts: { oneLine?: boolean } = {}): string {
  return text.replace(opts.oneLine ? UNSAFE_IN_LINE : UNSAFE, escape);
}
