// The text hooks inject (docs/api.md#what-the-context-holds): compact, one line per memory with its
// id (so the model can rate or modify it), sections only when they have something, all within a
// token budget.
import type { MemoryLine } from "./store";

/** A rough token count: about four characters per token for English text and code. */
const CHARS_PER_TOKEN = 4;
/** One memory's line is cut here: the id lets the model fetch the rest. */
const MAX_LINE_CHARS = 400;

/** `- <id> (<type>) <content on one line>` */
export function memoryLine(m: MemoryLine): string {
  const flat = m.content.replace(/\s+/g, " ").trim();
  const content = flat.length > MAX_LINE_CHARS ? `${flat.slice(0, MAX_LINE_CHARS - 1)}…` : flat;
  return `- ${m.id} (${m.type}) ${content}`;
}

/** A section's heading, on one line whatever its title holds (a project's path may hold a line break). */
function sectionHeading(title: string): string {
  return `## ${title.replace(/\s+/g, " ").trim()}\n`;
}

/** Text cut to at most `chars`, at a line break when one is near, marked as cut. */
export function clip(text: string, chars: number): string {
  const t = text.trim();
  if (t.length <= chars) return t;
  if (chars < 20) return "";
  const cut = t.slice(0, chars - 2);
  const atLine = cut.lastIndexOf("\n");
  return `${atLine > chars / 2 ? cut.slice(0, atLine) : cut}\n…`;
}

/**
 * Fills a context block section by section within `budgetTokens`: a section's text is cut to what
 * is left, and memory sections take whole lines only. Returns the text and the memory ids it holds.
 */
export class ContextBuilder {
  private readonly parts: string[] = [];
  private readonly budgetChars: number;
  private left: number;
  readonly ids: string[] = [];

  /** `heading` opens the block when it has any section; it counts against the budget too. */
  constructor(
    budgetTokens: number,
    private readonly heading: string,
  ) {
    this.budgetChars = budgetTokens * CHARS_PER_TOKEN;
    this.left = this.budgetChars - heading.length - 2;
  }

  /** A text section (a file, a summary), cut to `share` of the whole budget and to what is left. */
  text(title: string, body: string, share = 1): void {
    const heading = sectionHeading(title);
    const room = Math.min(Math.floor(this.budgetChars * share), this.left) - heading.length - 2;
    const clipped = clip(body, room);
    if (!clipped) return;
    this.push(`${heading}${clipped}`);
  }

  /** A section of memory lines, as many whole lines as fit; ids already shown are skipped. Returns the ids it shows. */
  memories(title: string, memories: MemoryLine[]): string[] {
    const heading = sectionHeading(title);
    let room = this.left - heading.length - 2;
    const lines: string[] = [];
    for (const m of memories) {
      if (this.ids.includes(m.id)) continue;
      const line = memoryLine(m);
      if (line.length + 1 > room) break;
      lines.push(line);
      this.ids.push(m.id);
      room -= line.length + 1;
    }
    if (lines.length > 0) this.push(`${heading}${lines.join("\n")}`);
    return this.ids.slice(this.ids.length - lines.length);
  }

  private push(section: string): void {
    this.parts.push(section);
    this.left -= section.length + 2;
  }

  /** The block, or "" when no section had anything. */
  build(): string {
    return this.parts.length > 0 ? [this.heading, ...this.parts].join("\n\n") : "";
  }
}
