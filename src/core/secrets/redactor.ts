// Redaction of injected secret values from a job's output (docs/security.md#redaction). Each value is
// replaced by [REDACTED] as written, base64-encoded (standard and URL-safe alphabets, at each of the
// three byte alignments a value can have inside a longer encoded text, with line breaks anywhere in
// it) and URL-encoded (upper and lower case hex, `+` or %20 for spaces). Output arrives in chunks that may cut a value anywhere, so
// the redactor holds back the last (longest form - 1) characters of what it has seen until the next
// chunk or the end: a value split across chunks is still seen whole. For base64 forms line breaks
// are not counted, so runs of them may lie between any two characters (up to MAX_HELD_LINE_BREAKS in
// one form).
export const REDACTED = "[REDACTED]";

/**
 * Line-break characters a base64 form may have inside it and still be caught. Any number of them can
 * lie between two characters of a form, so the hold-back counts characters without them; this caps
 * the line breaks held on top, so that a stream of them cannot make the redactor keep unbounded text.
 */
export const MAX_HELD_LINE_BREAKS = 1024 * 1024;

/** Encoded forms shorter than this are not redacted (a 2-character base64 core would hit everywhere). */
const MIN_ENCODED_FORM = 4;

/** The characters of base64(prefix + value) that depend on the value alone, for a prefix of `offset` bytes. */
function base64Core(value: Buffer, offset: number, urlSafe: boolean): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), value]).toString(urlSafe ? "base64url" : "base64").replace(/=+$/, "");
  // Characters before `first` carry prefix bits; from `last` on they carry bits of what follows.
  const first = Math.ceil((offset * 8) / 6);
  const last = Math.floor(((offset + value.length) * 8) / 6);
  return encoded.slice(first, last);
}

function urlForms(value: string): string[] {
  const component = encodeURIComponent(value);
  // Encoders differ in what they leave alone: encode every byte outside the unreserved set too.
  const strict = component.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const forms = [component, strict, strict.replace(/%20/g, "+")];
  return [...forms, ...forms.map((f) => f.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()))];
}

function base64Forms(value: string): string[] {
  if (value === "") return [];
  const bytes = Buffer.from(value, "utf8");
  const forms: string[] = [];
  for (const urlSafe of [false, true]) {
    for (const offset of [0, 1, 2]) forms.push(base64Core(bytes, offset, urlSafe));
    // A value encoded alone ends with its padding: take that form whole.
    forms.push(bytes.toString(urlSafe ? "base64url" : "base64"));
  }
  return forms.filter((f) => f.length >= MIN_ENCODED_FORM);
}

/** A streaming redactor for one output stream. `push` each decoded chunk, then `end`. */
export class Redactor {
  /** Matched as written: the values and their URL-encoded forms. */
  private readonly plain: string[];
  /** Matched with line breaks anywhere inside (base64(1) wraps at 76 characters, PEM at 64, `-w N` anywhere). */
  private readonly base64: string[];
  /** Characters held back for the plain forms: (longest - 1), counted as written. */
  private readonly plainHold: number;
  /** Characters held back for the base64 forms: (longest - 1), not counting line breaks. */
  private readonly base64Hold: number;
  private pending = "";

  constructor(values: Iterable<string>) {
    const plain = new Set<string>();
    const base64 = new Set<string>();
    for (const value of values) {
      if (value === "") continue;
      plain.add(value);
      for (const form of urlForms(value)) if (form.length >= MIN_ENCODED_FORM) plain.add(form);
      for (const form of base64Forms(value)) base64.add(form);
    }
    this.plain = [...plain];
    this.base64 = [...base64];
    this.plainHold = Math.max(0, ...this.plain.map((f) => f.length - 1));
    this.base64Hold = Math.max(0, ...this.base64.map((f) => f.length - 1));
  }

  /** The redacted text that can be released now; the rest waits for the next chunk. */
  push(chunk: string): string {
    return this.run(this.pending + chunk, false);
  }

  /** Whatever was held back, redacted. */
  end(): string {
    return this.run(this.pending, true);
  }

  /** `text` redacted as a whole, apart from the stream push() follows: for many texts with one set of forms. */
  whole(text: string): string {
    const pending = this.pending;
    const out = this.run(text, true);
    this.pending = pending;
    return out;
  }

  /** Where forms occur in `text`, as [start, end) sorted by start. String search, not one regular expression: that grows with the values' size past what the engine accepts. */
  private spans(text: string): [number, number][] {
    const spans: [number, number][] = [];
    for (const form of this.plain) {
      for (let i = text.indexOf(form); i !== -1; i = text.indexOf(form, i + 1)) spans.push([i, i + form.length]);
    }
    if (this.base64.length > 0) {
      // The text without line breaks, and where each of its characters was.
      const breaks = /[\r\n]/.test(text);
      const bare = breaks ? text.replace(/[\r\n]/g, "") : text;
      const at: number[] = [];
      if (breaks) for (let i = 0; i < text.length; i++) if (text[i] !== "\r" && text[i] !== "\n") at.push(i);
      const where = (i: number) => (breaks ? at[i]! : i);
      for (const form of this.base64) {
        for (let i = bare.indexOf(form); i !== -1; i = bare.indexOf(form, i + 1)) spans.push([where(i), where(i + form.length - 1) + 1]);
      }
    }
    return spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  }

  /**
   * Where the text held for base64 forms starts: at the first of the last `base64Hold` characters
   * that are not line breaks (line breaks before it cannot start a form), with no more than
   * MAX_HELD_LINE_BREAKS line breaks among them.
   */
  private base64Release(text: string): number {
    const floor = Math.max(0, text.length - this.base64Hold - MAX_HELD_LINE_BREAKS);
    let start = text.length;
    for (let i = text.length - 1, seen = 0; i >= floor && seen < this.base64Hold; i--) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) {
        start = i;
        seen++;
      }
    }
    return start;
  }

  private run(text: string, final: boolean): string {
    // A form starting before `release` lies wholly inside `text`: it can be judged now.
    const release = final ? text.length : Math.min(Math.max(0, text.length - this.plainHold), this.base64Release(text));
    const spans = this.spans(text);
    let out = "";
    let pos = 0;
    for (let k = 0; k < spans.length && spans[k]![0] < release; ) {
      const start = spans[k]![0];
      let end = spans[k++]![1];
      // Overlapping forms (a value and an encoding of it) become one mark: no piece of either shows.
      while (k < spans.length && spans[k]![0] < end) end = Math.max(end, spans[k++]![1]);
      out += text.slice(pos, start) + REDACTED;
      pos = end;
    }
    const cut = Math.max(pos, release);
    out += text.slice(pos, cut);
    this.pending = text.slice(cut);
    return out;
  }
}

/** `text` with every form of `values` redacted: for a whole text at once, such as an error message. */
export function redactText(text: string, values: Iterable<string>): string {
  return new Redactor(values).whole(text);
}
