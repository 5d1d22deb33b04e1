// Extraction: the entities a memory mentions and the claims it makes, from its content, its
// `structured` payload and its project, offline and in microseconds (no model, no NLP library:
// capitalized names, the names this agent's graph already knows, and a few claim patterns). What it
// finds is evidence for Dreaming (dream.ts), which merges and supersedes; it never decides alone.

type EntityType = "person" | "project" | "thing" | (string & {});

interface ExtractedEntity {
  name: string;
  /** The normalized name: what identifies the entity among this agent's names (nameKey). */
  key: string;
  type: EntityType;
  /** Other names the evidence gives it (a structured payload's `aliases`). */
  aliases: string[];
}

interface ExtractedClaim {
  /** The key of the entity the claim is about (one of the extraction's entities). */
  entity: string;
  aspect: string;
  slot: string;
  value: string;
  confidence: number;
}

export interface Extraction {
  entities: ExtractedEntity[];
  claims: ExtractedClaim[];
}

export interface ExtractionInput {
  content: string;
  structured: Record<string, unknown> | null;
  project: string | null;
  /** Whether `key` is a name this agent's graph already knows (so a lower-case or sentence-initial mention counts). */
  known?: (key: string) => boolean;
  /**
   * Whether a lower-case word is an everyday word (everyday-words.ts): a known one-word name that is
   * one ("Work", "Apple") is a mention only where it is written as a name, and a sentence's everyday
   * first word does not start a name ("Visit Tokyo" names Tokyo).
   */
  everyday?: (word: string) => boolean;
}

const NO_WORD = () => false;

/** A name as the graph compares it: case, spacing, quotes, a leading article and a possessive set aside. */
export function nameKey(name: string): string {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[`"“”‘’]/g, "")
    .replace(/'s$/, "")
    .replace(/^(?:the|a|an|our|my)\s+/, "")
    .replace(/[\s_]+/g, " ")
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}+#]+$/gu, "")
    .trim();
}

/** The longest name, in words, the gazetteer looks for. */
const MAX_NAME_WORDS = 4;
/**
 * Capitalized words that are not names: pronouns and their contractions, question words,
 * quantifiers, greetings and other words a sentence opens with, days and months.
 */
const NOT_NAMES = new Set(
  (
    "i we you he she they it its our my your their this that these those there here the a an and or but if when while " +
    "i'm i've i'll i'd it's that's there's here's what's let's let can't won't don't didn't doesn't isn't " +
    "what who whom whose which where why how " +
    "all both each every some any many most much more other another none everything everyone everybody anything " +
    "anyone anybody nothing nobody something someone somebody " +
    "hey hi hello bye goodbye thanks thank wow oh ah aw aww yeah yep yup nope okay congrats congratulations haha lol omg sorry please " +
    "just even see sounds actually anyway maybe really definitely totally absolutely honestly hopefully luckily " +
    "always never use prefer do does not no yes ok todo note fixme also then so for to in on at by of with from " +
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays " +
    "january february march april may june july august " +
    "september october november december today tomorrow yesterday " +
    // Acronyms too generic to be an entity of their own.
    "db api ui ux ci cd pr prs id ids url urls cli os tbd wip fyi asap eod"
  ).split(" "),
);
/** A word as NOT_NAMES holds it: lower case, a typographic apostrophe as a plain one. */
const plainWord = (word: string) => word.toLowerCase().replace(/’/g, "'");
/** Verbs after a single capitalized word that make it a person ("Kenji approves ..."). */
const PERSON_VERBS = new Set(
  (
    "said says asked asks told tells approves approved signs signed owns owned leads led prefers preferred wants wanted " +
    "thinks thought reviews reviewed manages managed joined left wrote writes likes liked hates suggested suggests " +
    "mentioned agreed decided"
  ).split(" "),
);
const WORD = /[\p{L}\p{N}][\p{L}\p{N}+#'.-]*[\p{L}\p{N}+#]|[\p{L}\p{N}]/gu;

interface Token {
  text: string;
  start: number;
  end: number;
  /** First word of a sentence (or of a line, or after a colon). */
  opens: boolean;
  /** Only spaces between it and the word before: the two may be one name's words ("Dana Weber", not "Thanks, Dana"). */
  joined: boolean;
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const start = m.index!;
    const gap = text.slice(last, start);
    // A sentence also ends before a closing quote or bracket: `"... Savana." What ...`.
    const opens = out.length === 0 || /[.!?:;]["'\u201d\u2019)\]]*\s*$|\n/.test(gap);
    out.push({ text: m[0], start, end: start + m[0].length, opens, joined: /^[ \t]+$/.test(gap) });
    last = start + m[0].length;
  }
  return out;
}

/** A word written as a name: capitalized (Dana, PostgreSQL, GitHub), not an all-caps shout of one letter. */
function capitalized(word: string): boolean {
  return /^\p{Lu}/u.test(word) && /\p{L}/u.test(word.slice(1)) && !NOT_NAMES.has(plainWord(word));
}

/** A name with a capital inside it (PostgreSQL, GitHub, iOS): a name even at a sentence's start. */
function innerCapital(word: string): boolean {
  return /^\p{L}.*\p{Lu}/u.test(word) && /\p{Ll}/u.test(word);
}

function personish(words: string[], next: string | undefined): boolean {
  const alpha = words.every((w) => /^\p{Lu}\p{Ll}+$/u.test(w));
  if (!alpha) return false;
  if (words.length >= 2 && words.length <= 3) return true;
  return next !== undefined && PERSON_VERBS.has(next.toLowerCase());
}

interface KnownSpan {
  at: number;
  words: number;
  name: string;
  key: string;
}

/** The names in `toks` that the agent's graph knows, longest match first ("Dana Weber" over "Dana"). */
function knownSpans(text: string, toks: Token[], known: (key: string) => boolean, everyday: (word: string) => boolean): KnownSpan[] {
  const spans: KnownSpan[] = [];
  // A span's key is its words' keys joined, as nameKey makes a name's: each word normalized once, not
  // every span of up to MAX_NAME_WORDS words again (extraction's main cost, and its garbage).
  const keys = toks.map((t) => nameKey(t.text));
  for (let i = 0; i < toks.length; i++) {
    // A name's words have only spaces between them.
    let most = 1;
    while (most < MAX_NAME_WORDS && i + most < toks.length && toks[i + most]!.joined) most++;
    for (let n = most; n >= 1; n--) {
      const key = n === 1 ? keys[i]! : keys.slice(i, i + n).join(" ");
      if (!key || NOT_NAMES.has(key) || !known(key)) continue;
      if (n === 1 && everyday(key) && !writtenAsName(toks[i]!)) continue;
      spans.push({ at: i, words: n, name: text.slice(toks[i]!.start, toks[i + n - 1]!.end), key });
      i += n - 1;
      break;
    }
  }
  return spans;
}

/** Capitalized inside a sentence, and not all in capitals (a shout): "Apple" in "I switched to Apple". */
function writtenAsName(tok: Token): boolean {
  return !tok.opens && /^\p{Lu}/u.test(tok.text) && /\p{Ll}/u.test(tok.text);
}

/** The keys of the names in `text` that the agent's graph knows (a query's, for recall). */
export function knownKeysIn(text: string, known: (key: string) => boolean, everyday: (word: string) => boolean = NO_WORD): string[] {
  return knownSpans(text, tokens(text), known, everyday).map((s) => s.key);
}

/**
 * Whether `name` is one an older version took that these rules would not: it opens with a word they
 * never start a name with ("Hey John", "What's Scout") or runs across punctuation ("Thanks, Calvin").
 * A name a structured payload gave ("Ledger API", "kenji sato") is not such a misreading.
 */
export function misreadName(name: string): boolean {
  const toks = tokens(name);
  return toks.length > 1 && (NOT_NAMES.has(plainWord(toks[0]!.text)) || toks.slice(1).some((t) => !t.joined));
}

/**
 * Whether extraction, by its rules alone (no names known), takes `name` said inside a sentence for one
 * whole name: "Dana Weber" and "PostgreSQL" it does; "Hey John" (an older version's) it does not.
 */
export function takenAsName(name: string, everyday: (word: string) => boolean = NO_WORD): boolean {
  const found = namesIn(`with ${name}`, NO_WORD, everyday);
  return found.length === 1 && nameKey(found[0]!.name) === nameKey(name);
}

/** The end (exclusive) of the capitalized run starting at `i`, at most MAX_NAME_WORDS words, stopping at a taken token. */
function runEnd(toks: Token[], i: number, taken?: Set<number>): number {
  let j = i;
  while (j + 1 < toks.length && !taken?.has(j + 1) && toks[j + 1]!.joined && !toks[j + 1]!.opens && capitalized(toks[j + 1]!.text) && j - i < MAX_NAME_WORDS - 1) j++;
  return j + 1;
}

/**
 * Capitalized runs ("Dana Weber", "PostgreSQL") and the names the agent already knows, in order of
 * appearance. A run that extends known names ("Dana Weber" once "Dana" is known, "React Native" once
 * "React" is) is the longer name, not the known one and a stray rest, so the graph does not depend on
 * which it heard first; a known name reaching past the run ("dana weber" in "Dana weber") stays known.
 */
function namesIn(text: string, known: (key: string) => boolean, everyday: (word: string) => boolean): { name: string; type: EntityType }[] {
  const toks = tokens(text);
  const found: { name: string; type: EntityType; at: number }[] = [];
  const spans = knownSpans(text, toks, known, everyday);
  const taken = new Set<number>();
  const run = (i: number, end: number) => {
    const words = toks.slice(i, end).map((t) => t.text);
    const name = text.slice(toks[i]!.start, toks[end - 1]!.end).replace(/'s$/, "");
    found.push({ name, type: personish(words, toks[end]?.text) ? "person" : "thing", at: i });
    for (let k = i; k < end; k++) taken.add(k);
  };
  if (spans.length > 0) {
    const spanAt: (KnownSpan | undefined)[] = new Array(toks.length);
    for (const span of spans) for (let k = span.at; k < span.at + span.words; k++) spanAt[k] = span;
    const outgrown = new Set<KnownSpan>();
    for (let i = 0; i < toks.length; i++) {
      if (!capitalized(toks[i]!.text)) continue;
      // A sentence's first word before a known name is the sentence's ("Ask Dana ..."), as a lone
      // one is below: it does not extend the name.
      if (toks[i]!.opens && !spanAt[i] && spanAt[i + 1]?.at === i + 1) continue;
      const end = runEnd(toks, i);
      // The run is the name when it holds known names, each wholly inside it and shorter than it.
      let holds = false;
      let outgrows = true;
      for (let k = i; k < end; k++) {
        const span = spanAt[k];
        if (!span) continue;
        holds = true;
        if (span.at < i || span.at + span.words > end || span.words === end - i) outgrows = false;
      }
      if (holds && outgrows) {
        for (let k = i; k < end; k++) if (spanAt[k]) outgrown.add(spanAt[k]!);
        run(i, end);
      }
      i = end - 1;
    }
    for (const span of spans) {
      if (outgrown.has(span)) continue;
      found.push({ name: span.name, type: "thing", at: span.at });
      for (let k = span.at; k < span.at + span.words; k++) taken.add(k);
    }
  }
  for (let i = 0; i < toks.length; i++) {
    if (taken.has(i) || !capitalized(toks[i]!.text)) continue;
    const end = runEnd(toks, i, taken);
    // A lone capitalized word opening a sentence is usually just the sentence's first word, unless
    // it is written as a name (PostgreSQL), owns something (Dana's) or acts as a person (Kenji approves).
    const word = toks[i]!.text;
    const next = toks[end]?.text;
    const actsAsName = innerCapital(word) || /'s$/.test(word) || (next !== undefined && PERSON_VERBS.has(next.toLowerCase()));
    if (toks[i]!.opens && end === i + 1 && !actsAsName) continue;
    // An everyday word opening a sentence is the sentence's ("Visit Tokyo"); one in capitals is a
    // shout ("so INTENSE").
    if (everyday(plainWord(word)) && ((toks[i]!.opens && end > i + 1) || (end === i + 1 && !/\p{Ll}/u.test(word)))) continue;
    run(i, end);
    i = end - 1;
  }
  return found.sort((a, b) => a.at - b.at);
}

// "the staging DB is heron-8", "our API port is now 8080", "the orders service is on `db-2`": a
// subject phrase after an article or possessive, then a value that reads as an identifier (a digit in
// it, quoted, or capitalized: case-sensitive, so "the staging DB is slow" claims nothing).
const IS_CLAIM =
  /(?:^|[^\p{L}\p{N}])(?:[Tt]he|[Oo]ur|[Mm]y)\s+((?:[\p{L}\p{N}][\p{L}\p{N}_-]*\s+){0,3}[\p{L}\p{N}][\p{L}\p{N}_-]*)\s+(?:is|are|was|=)\s+(?:now\s+|still\s+)?(?:called\s+|named\s+|on\s+|at\s+)?(`[^`\n]{1,80}`|"[^"\n]{1,80}"|[\p{L}\p{N}][\w./:@-]*\d[\w./:@-]*|\p{Lu}[\w.-]+)/gu;

/**
 * A claim's subject becomes an entity, and the gazetteer then finds it wherever it is named: a
 * single plain word ("the linter is v3") would turn every later "linter" into a mention, so the
 * subject must be a phrase ("staging DB") or read as a name (a capital or a digit in it).
 */
const specificSubject = (subject: string) => /\s/.test(subject.trim()) || /[\p{Lu}\p{N}]/u.test(subject);

function textClaims(text: string): { subject: string; value: string }[] {
  const out: { subject: string; value: string }[] = [];
  for (const m of text.matchAll(IS_CLAIM)) {
    const value = m[2]!.replace(/^[`"]|[`"]$/g, "").replace(/[.:]+$/, "");
    if (value && specificSubject(m[1]!)) out.push({ subject: m[1]!, value });
  }
  return out;
}

/** Keys of a structured payload that describe it rather than state an attribute. */
const STRUCTURE_KEYS = new Set(["entity", "name", "entitytype", "type", "aspect", "aliases", "attributes", "aspects", "source"]);

function scalar(value: unknown): string | null {
  if (typeof value === "string") return value.trim() ? value.trim().slice(0, 500) : null;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

/**
 * A structured payload as evidence: `{entity, entityType?, aspect?, aliases?, attributes?: {slot:
 * value}, aspects?: {aspect: {slot: value}}}`, and the payload's other scalar fields as attributes.
 */
function structuredEvidence(s: Record<string, unknown>): { entity: ExtractedEntity; claims: Omit<ExtractedClaim, "entity">[] } | null {
  const name = scalar(s.entity) ?? scalar(s.name);
  if (!name) return null;
  const key = nameKey(name);
  if (!key) return null;
  const type = scalar(s.entityType) ?? scalar(s.type) ?? "thing";
  const aliases = Array.isArray(s.aliases) ? s.aliases.map(scalar).filter((a): a is string => a !== null) : [];
  const aspect = scalar(s.aspect) ?? "attributes";
  const claims: Omit<ExtractedClaim, "entity">[] = [];
  const add = (aspectName: string, fields: unknown) => {
    if (!fields || typeof fields !== "object" || Array.isArray(fields)) return;
    for (const [slot, raw] of Object.entries(fields as Record<string, unknown>)) {
      const value = scalar(raw);
      if (value !== null && slot.trim()) claims.push({ aspect: aspectName, slot: slot.trim(), value, confidence: 0.9 });
    }
  };
  add(aspect, s.attributes);
  if (s.aspects && typeof s.aspects === "object") for (const [a, fields] of Object.entries(s.aspects as Record<string, unknown>)) add(a, fields);
  add(
    aspect,
    Object.fromEntries(Object.entries(s).filter(([k]) => !STRUCTURE_KEYS.has(k.toLowerCase()))),
  );
  return { entity: { name, key, type: type.toLowerCase(), aliases }, claims };
}

/** What one memory says: its entities (the project's first) and its claims. */
export function extract(input: ExtractionInput): Extraction {
  const known = input.known ?? NO_WORD;
  const everyday = input.everyday ?? NO_WORD;
  const entities = new Map<string, ExtractedEntity>();
  const add = (e: ExtractedEntity) => {
    const had = entities.get(e.key);
    if (!had) entities.set(e.key, e);
    else {
      // A structured or project type says more than a guess from capitals.
      if (had.type === "thing" && e.type !== "thing") had.type = e.type;
      for (const a of e.aliases) if (!had.aliases.includes(a)) had.aliases.push(a);
    }
  };
  const claims: ExtractedClaim[] = [];
  if (input.project) {
    const key = nameKey(input.project);
    if (key) add({ name: input.project, key, type: "project", aliases: [] });
  }
  const evidence = input.structured ? structuredEvidence(input.structured) : null;
  if (evidence) {
    add(evidence.entity);
    for (const c of evidence.claims) claims.push({ entity: evidence.entity.key, ...c });
  }
  for (const { name, type } of namesIn(input.content, known, everyday)) {
    const key = nameKey(name);
    if (key && !NOT_NAMES.has(key)) add({ name, key, type, aliases: [] });
  }
  for (const { subject, value } of textClaims(input.content)) {
    const key = nameKey(subject);
    if (!key) continue;
    add({ name: subject, key, type: "thing", aliases: [] });
    claims.push({ entity: key, aspect: "general", slot: "is", value, confidence: 0.6 });
  }
  return { entities: [...entities.values()], claims };
}
