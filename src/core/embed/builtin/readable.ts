// Whether the builtin model can read a text at all. Its vocabulary (USE-lite's, 8,000 pieces) is of
// Latin script: a text of another script, or of emoji alone, tokenizes to one unknown piece (runs of
// unknown symbols collapse), so every such text gets the same vector, and a Japanese question would
// stand out as "close" to every Japanese memory whatever they say. Such a text's vector is no evidence.

/** Whether most of `text`'s letters are Latin script (or, with no letters, it has digits to read). */
export function readableByBuiltinModel(text: string): boolean {
  let letters = 0;
  let latin = 0;
  for (const ch of text) {
    if (!/\p{L}/u.test(ch)) continue;
    letters++;
    if (/\p{Script=Latin}/u.test(ch)) latin++;
  }
  if (letters === 0) return /\d/.test(text);
  return latin * 2 > letters;
}
