// basic-memory's notes (markdown with YAML frontmatter; docs/api.md#foreign-formats) as memories.
// A note's facts are its observations, `- [category] text #tag (context)`: each becomes a memory of
// its own, its text as written, typed by its category when that is a type word (decision,
// preference, ...) and tagged with the note's tags, its inline #tags and the note's title. Each
// relation, `- relation_type [[Target]]`, becomes a memory "<title> <relation_type> <Target>" tagged
// with both titles. A note with neither becomes one memory of type note holding its text.
// Both are recognized anywhere outside code fences, as basic-memory does; task items (`- [ ]`,
// `- [x]`) are not observations.
import { basename, extname } from "node:path";
import { invalidInput } from "../../contracts/errors";
import type { NoteFile } from "../../contracts/transfer";
import type { ForeignMemory } from "./foreign";

const SOURCE = "basic-memory";
const OBSERVATION = /^\s*[-*]\s+\[([^\]]+)\]\s+(\S.*?)\s*$/;
const RELATION = /^\s*[-*]\s+([^\s[\]]+)\s+\[\[([^\]]+)\]\](?:\s+\((.*)\))?\s*$/;
const INLINE_TAG = /(?:^|\s)#([\p{L}\p{N}_/-]+)/gu;
const TASK = /^[ xX]$/;

interface Frontmatter {
  title?: unknown;
  type?: unknown;
  tags?: unknown;
  permalink?: unknown;
}

/** The YAML between the opening and closing `---` lines, and the text after it. */
function splitFrontmatter(note: NoteFile): { meta: Frontmatter; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(note.text);
  if (!m) return { meta: {}, body: note.text };
  let meta: unknown;
  try {
    meta = Bun.YAML.parse(m[1]!);
  } catch (err) {
    throw invalidInput(`its frontmatter is not valid YAML: ${(err as Error).message}`);
  }
  if (meta !== null && (typeof meta !== "object" || Array.isArray(meta))) throw invalidInput("its frontmatter is not a YAML mapping");
  return { meta: (meta ?? {}) as Frontmatter, body: note.text.slice(m[0].length) };
}

const text = (value: unknown): string | undefined => (typeof value === "string" || typeof value === "number" ? String(value).trim() || undefined : undefined);

/** `tags: [a, b]`, a YAML list, or `tags: a, b`; a leading # is dropped. */
function tagList(value: unknown): string[] {
  const raw = Array.isArray(value) ? value.map(text) : (text(value)?.split(",") ?? []);
  return raw.map((t) => t?.trim().replace(/^#/, "")).filter((t): t is string => !!t);
}

/** The memories of one note; invalid input (naming the problem) when its frontmatter cannot be read. */
export function basicMemoryMemories(note: NoteFile): ForeignMemory[] {
  const { meta, body } = splitFrontmatter(note);
  const title = text(meta.title) ?? basename(note.path, extname(note.path));
  const permalink = text(meta.permalink) ?? null;
  const noteType = text(meta.type) ?? "note";
  const noteTags = tagList(meta.tags);
  const origin = permalink ?? note.path;
  const about = { source: SOURCE, note: title, permalink, noteType, path: note.path };
  const out: ForeignMemory[] = [];
  let fenced = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const observation = OBSERVATION.exec(line);
    if (observation && !TASK.test(observation[1]!)) {
      const [, category, content] = observation as unknown as [string, string, string];
      const inline = [...content.matchAll(INLINE_TAG)].map((t) => t[1]!);
      out.push({ origin, content, type: category.trim(), tags: [...noteTags, ...inline, title], structured: { ...about, category: category.trim() } });
      continue;
    }
    const relation = RELATION.exec(line);
    if (relation) {
      const [, relationType, target, context] = relation as unknown as [string, string, string, string | undefined];
      out.push({
        origin,
        content: `${title} ${relationType} ${target.trim()}`,
        type: "fact",
        tags: [title, target],
        structured: { ...about, relation: { type: relationType, target: target.trim(), ...(context ? { context } : {}) } },
      });
    }
  }
  if (out.length > 0) return out;
  const whole = body.trim();
  if (whole === "") return [];
  // The title leads, as in a note remembered here (docs/api.md#post-apimemorynote), unless the text opens with it.
  const content = whole.startsWith(`# ${title}`) ? whole : `${title}\n\n${whole}`;
  return [{ origin, content, type: "note", tags: [...noteTags, title], structured: about }];
}
