// The JS tokenizer against SQLite itself: every text goes through an FTS5 table with memories_fts's
// own tokenizer, whose tokens (read back in order from an fts5vocab 'instance' table) must equal
// tokenize()'s, row by row. Any difference fails, showing the first few.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeGenerator, makeQueryGenerator, mulberry32 } from "../../scripts/lib/content";
import { stem, tokenize } from "../../src/core/search/fts5-tokenizer";

const ROOT = join(import.meta.dir, "../..");
const LOCOMO = join(ROOT, "../shared/bench/locomo");

// The tokenizer memories_fts is declared with, so the test follows the migration if it changes.
const FTS_TOKENIZER = /memories_fts USING fts5\([^)]*tokenize = '([^']+)'/.exec(
  readFileSync(join(ROOT, "migrations/001_init.sql"), "utf8"),
)![1]!;

/** FTS5's tokens for each text under the given tokenizer, in order. */
function fts5Tokens(texts: readonly string[], tokenizer = FTS_TOKENIZER): string[][] {
  const db = new Database(":memory:");
  db.run(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '${tokenizer}')`);
  db.run("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')");
  const insert = db.query("INSERT INTO t (rowid, x) VALUES (?, ?)");
  db.transaction(() => texts.forEach((text, i) => insert.run(i + 1, text)))();
  const out = texts.map((): string[] => []);
  for (const [term, doc] of db.query("SELECT term, doc FROM v ORDER BY doc, offset").values() as [string, number][]) {
    out[doc - 1]!.push(term);
  }
  db.close();
  return out;
}

const show = (s: string) => (s.length > 120 ? `${JSON.stringify(s.slice(0, 120))}… (${s.length} chars)` : JSON.stringify(s));

/** Rows where tokenize() and FTS5 disagree: how many, and the first few. */
function differences(texts: readonly string[]) {
  const expected = fts5Tokens(texts);
  const first: { text: string; fts5: string; ours: string }[] = [];
  let count = 0;
  texts.forEach((text, i) => {
    const ours = tokenize(text);
    const theirs = expected[i]!;
    if (ours.length === theirs.length && ours.every((t, k) => t === theirs[k])) return;
    count++;
    if (first.length < 5) first.push({ text: show(text), fts5: show(theirs.join(" | ")), ours: show(ours.join(" | ")) });
  });
  return { count, first };
}

const NONE = { count: 0, first: [] };

const TRICKY = [
  // code, paths, numbers, addresses
  "getHTTPResponse2 parseJSON XMLHttpRequest snake_case_name __init__ kebab-case-name camelCase",
  "/usr/local/bin/bun C:\\Users\\dana\\AppData ./src/core/recall/tokenize.ts ~/.config/signet.yaml",
  "error E0425 TS2345 ENOENT EADDRINUSE 0x1F 0b1010 1.5e3 3,000 1_000_000 v1.2.3 3rd 1990s 42nd 2023-05-08T13:56:00Z",
  "alice.smith+tag@example.co.uk https://example.com/path?q=1&r=two#frag git@github.com:org/repo.git",
  "don't it's Caroline's rock'n'roll o’clock “smart quotes” «guillemets» state-of-the-art en–dash em—dash",
  "tabs\tand\nnewlines\r\nand  double  spaces\u00a0nbsp\u2003emspace\u3000ideographic\u200bzwsp\u00adsoft",
  // Latin with diacritics, ligatures, special folds
  "café naïve Ångström résumé façade jalapeño Øresund Łódź Dvořák Ærøskøbing ǅemal Ǆ ǆ ß ẞ ﬁnance ﬂ ﬀ ſt Ĳssel ĳs ŉ ǰ",
  "Ⅻ ⅻ Ⅳ ½ ² ³ ① ⑴ K Å Ω µ ſ ı İstanbul İ ı ǈ Ǉ ǋ ȸ ɐ ʘ ᴀ ℌ ℍ ℓ № ™ ª º",
  "cafe\u0301 nai\u0308ve e\u0301te\u0301 a\u0300\u0301\u0302\u0303 \u0301leading \u0301 \u0308\u0301 z\u0336a\u0337l\u0338g\u0335o\u0334",
  "Tiếng Việt có dấu: Hà Nội, Thành phố Hồ Chí Minh, người, được, những",
  // other scripts
  "Ελληνικά ΑΘΗΝΑ Σίσυφος ς σ Σ ΐ ΰ ϐ ϑ ϕ ϖ ϰ ϱ ϵ",
  "Русский язык ЁЛКА ёлка Щука Їжак Ґанок Ўзбек српски Љубав",
  "Türkçe İĞNE ığne ŞEKER şeker Azərbaycan",
  "العربية مَرْحَبًا بِكُمْ ٣٤٥ ١٢ فارسی ۱۲۳",
  "עִבְרִית שָׁלוֹם עולם",
  "हिन्दी भाषा नमस्ते দেবনাগরী ไทย ภาษาไทย ສະບາຍດີ",
  "中文分词测试 東京都 日本語のテキスト ひらがな カタカナ ｶﾀｶﾅ 한국어 텍스트 안녕하세요 ㄱㄴㄷ",
  // symbols, emoji, invisible and unusual code points
  "emoji 😀 🤔 🥰 🦀 🫠 👍🏽 👨\u200d👩\u200d👧 🇫🇷 1️⃣ ❤️ ✔ ★ ☃ ⌘ → ∑ ∞",
  "zero\u200dwidth\u200cjoiners\u2060word\ufeffbom \ufeffleading",
  "Ｈｅｌｌｏ　Ｗｏｒｌｄ １２３ 𝐇𝐞𝐥𝐥𝐨 𝕎𝕠𝕣𝕝𝕕 𝓢𝓬𝓻𝓲𝓹𝓽",
  "private \ue000\ue001 \uf8ff x\ue123y \u{f0000} \u{10fffd}",
  "𐐀𐐁𐐨 Deseret 𐌰𐌱 Gothic 𓀀 hieroglyph \u{20000}\u{2a6d6} \u{30000} \u{e0001}tag \u{e0100}",
  "lone \ud800 surrogates x\udc00y \ud83d end\ud83d",
  "nul\u0000byte \u0001\u001f control\u007fchars \ufffd\ufffe\uffff",
  // long tokens around porter's 64-byte limit and FTS5's 32768-byte cap
  `${"a".repeat(61)}ing ${"a".repeat(62)}ing ${"b".repeat(70)} ${"Ab".repeat(40)}ational`,
  `a${"α".repeat(30)}ing a${"α".repeat(31)}ing ${"é".repeat(40)}s`,
  "x".repeat(40000),
  `y${"é".repeat(33000)}`,
  `${"中".repeat(11000)}z`,
  `${"aé".repeat(20000)} ${"aα".repeat(12000)}`,
  // porter on multi-byte tokens: "ing" then a doubled final byte cuts a character in half
  "a\u1041ing b\u1042ed a\u1081ing ၁၂ing 日本ing 中文ed naïveness Ålesund's",
  // classic Porter examples and SQLite's quirks
  "caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned " +
    "falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer " +
    "conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness " +
    "hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical " +
    "hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement " +
    "adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate " +
    "rate cease controll roll generalizations oscillators yyyy syzygy says ying eying dyed aed eed ied sses ies",
  "",
  "   ",
  "?!? ... --- ***",
];

/** Every code point alone (starts a token?), inside one (separates? folds to?) and before "ing" (porter on its bytes). */
function everyCodePoint(): string[] {
  const texts: string[] = [];
  let parts: string[] = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const ch = String.fromCodePoint(c);
    parts.push(`${ch} q${ch}q a${ch}ing`);
    if (parts.length === 2048) {
      texts.push(parts.join(" "));
      parts = [];
    }
  }
  texts.push(parts.join(" "));
  return texts;
}

function locomoTexts(): string[] {
  const lines = (file: string) =>
    readFileSync(join(LOCOMO, file), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const texts: string[] = [];
  for (const m of lines("memories.jsonl")) {
    texts.push(String(m.content));
    if (m.image_caption) texts.push(String(m.image_caption));
  }
  for (const q of lines("queries.jsonl")) texts.push(String(q.question), String(q.answer));
  return texts;
}

function generatorTexts(): string[] {
  const memory = makeGenerator(1);
  const query = makeQueryGenerator(1);
  const texts: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    const body = JSON.parse(memory()) as { content: string; tags: string[] };
    texts.push(body.content, body.tags.join(" "), query().query);
  }
  return texts;
}

/** Words built to walk every porter rule and condition, plus random ones over porter-heavy letters. */
function porterWords(): string[] {
  const suffixes = [
    "", "s", "es", "ies", "sses", "ss", "ed", "eed", "ing", "y", "e", "l", "ll", "at", "bl", "iz", "ational", "tional",
    "enci", "anci", "izer", "logi", "bli", "alli", "entli", "eli", "ousli", "ization", "ation", "ator", "alism",
    "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "ical", "ness", "icate", "iciti", "ful", "ative", "alize",
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "sion", "tion", "ou", "ism",
    "ate", "iti", "ous", "ive", "ize",
  ];
  const stems = [
    "", "a", "b", "y", "ya", "yb", "by", "tr", "tre", "bey", "hop", "fil", "fail", "sky", "agr", "conflat", "troubl",
    "siz", "hopp", "fall", "hiss", "fizz", "oscill", "gener", "vietnam", "rel", "cond", "x", "ow", "ax", "abcy",
    "syzyg", "oat", "cav", "bow", "box", "ay", "play", "toy", "ee", "ii", "ss", "ll", "zz", "adj", "depend", "ad",
  ];
  const words = new Set<string>();
  for (const s of stems) for (const a of suffixes) for (const b of suffixes) words.add(s + a + b);
  const rnd = mulberry32(7);
  const letters = "aeiouyyyssseeelllddnngtbcmrwxzp";
  for (let i = 0; i < 30_000; i++) {
    let w = "";
    const n = 1 + Math.floor(rnd() * 70);
    while (w.length < n) w += letters[Math.floor(rnd() * letters.length)];
    words.add(w);
  }
  return [...words].filter((w) => w.length > 0);
}

describe("tokenize matches FTS5's porter unicode61 remove_diacritics 2", () => {
  test("the tokenizer under test is memories_fts's", () => {
    expect(FTS_TOKENIZER).toBe("porter unicode61 remove_diacritics 2");
  });

  test("hand-picked tricky text: code, numbers, scripts, emoji, invisible characters, long tokens", () => {
    expect(differences(TRICKY)).toEqual(NONE);
  });

  test("every code point, alone, inside a token and stemmed", () => {
    expect(differences(everyCodePoint())).toEqual(NONE);
  }, 60_000);

  // LoCoMo lives beside the repository (evaluation data, not shipped): where it is, its every turn,
  // caption, question and answer is compared too.
  test("the benchmark corpora: the generator's memories, tags and queries, and LoCoMo where present", () => {
    const locomo = existsSync(LOCOMO) ? locomoTexts() : [];
    if (locomo.length > 0) expect(locomo.length).toBeGreaterThan(5_000);
    expect(differences([...generatorTexts(), ...locomo])).toEqual(NONE);
  }, 30_000);

  test("a warm cache gives the same tokens as a cold one", () => {
    const text = TRICKY.join(" ");
    expect(tokenize(text)).toEqual(tokenize(text));
  });
});

describe("stem matches FTS5's porter stemmer", () => {
  test("every distinct word of the corpus and words built to walk every rule", () => {
    // The corpus's words as unicode61 folds them (no porter), then each through porter alone.
    const corpus = [...TRICKY, ...generatorTexts(), ...(existsSync(LOCOMO) ? locomoTexts() : [])];
    // Tokens cut mid-character by FTS5's length cap read back with a U+FFFD, a separator: not words.
    const words = new Set(fts5Tokens(corpus, "unicode61 remove_diacritics 2").flat().filter((w) => !w.includes("\ufffd")));
    for (const w of porterWords()) words.add(w);
    const list = [...words];
    const stems = fts5Tokens(list);
    const wrong = list.filter((w, i) => stems[i]!.length !== 1 || stem(w) !== stems[i]![0]);
    expect(list.length).toBeGreaterThan(100_000);
    expect({
      count: wrong.length,
      first: wrong.slice(0, 5).map((w) => ({ word: show(w), fts5: stems[list.indexOf(w)], ours: stem(w) })),
    }).toEqual(NONE);
  }, 30_000);
});
