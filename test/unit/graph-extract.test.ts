// Extraction (src/core/graph/extract.ts): which names become entities, of which type, and which
// sentences are claims, case by case; and the gazetteer's matching of names already known.
import { describe, expect, test } from "bun:test";
import { everydayWords } from "../../src/core/graph/everyday-words";
import { extract, knownKeysIn, misreadName, nameKey, takenAsName } from "../../src/core/graph/extract";

const everyday = await everydayWords();
const names = (content: string, known: string[] = [], words: ReadonlySet<string> = new Set()) =>
  extract({ content, structured: null, project: null, known: (k) => known.includes(k), everyday: (w) => words.has(w) }).entities.map((e) => [e.name, e.type]);
const claims = (content: string) => extract({ content, structured: null, project: null }).claims.map((c) => [c.entity, `${c.aspect}.${c.slot}`, c.value]);

describe("names", () => {
  test("capitalized runs are entities; a person's name reads as one", () => {
    expect(names("We asked Dana Weber about the rollout.")).toEqual([["Dana Weber", "person"]]);
    expect(names("We moved from MySQL to PostgreSQL last year.")).toEqual([
      ["MySQL", "thing"],
      ["PostgreSQL", "thing"],
    ]);
  });

  test("a lone word opening a sentence is a name only when written as one, owning something, or acting as a person", () => {
    expect(names("Integration tests need docker compose.")).toEqual([]);
    expect(names("Prefer tabs. Always run the linter.")).toEqual([]);
    expect(names("Kenji approves the team's leave requests.")).toEqual([["Kenji", "person"]]);
    expect(names("Dana's laptop has the signing key.")).toEqual([["Dana", "thing"]]);
    expect(names("GitHub Actions runs the deploy.")).toEqual([["GitHub Actions", "thing"]]);
  });

  test("days, months, pronouns and generic acronyms are not entities", () => {
    expect(names("On Tuesdays we deploy; in March we freeze. The API and the DB stay up. I think so.")).toEqual([]);
  });

  test("a name the graph knows is found in any case, the longest known name first", () => {
    expect(names("ask dana weber, not dana", ["dana weber", "dana"])).toEqual([
      ["dana weber", "thing"],
      ["dana", "thing"],
    ]);
    expect(knownKeysIn("is postgresql on the staging db?", (k) => ["postgresql", "staging db"].includes(k))).toEqual(["postgresql", "staging db"]);
    expect(knownKeysIn("nothing known here", () => false)).toEqual([]);
  });

  test("a capitalized run extending a known name is the longer name, whichever was heard first", () => {
    for (const known of [[], ["dana"], ["dana weber"], ["dana", "dana weber"]]) {
      expect(names("Dana Weber owns the billing service", known)).toEqual([["Dana Weber", known.includes("dana weber") ? "thing" : "person"]]);
    }
    for (const known of [[], ["react"], ["react native"]]) {
      expect(names("The mobile app uses React Native", known).map(([name]) => name)).toEqual(["React Native"]);
    }
    // The shorter name alone is still the known one, in either order.
    expect(names("Dana reviews every database migration", ["dana weber"])).toEqual([["Dana", "person"]]);
    expect(names("The web app uses React", ["react native"])).toEqual([["React", "thing"]]);
    // Inside a sentence, after a possessive, and a known name at either end of the run.
    expect(names("We asked Dana Weber's team first.", ["dana"])).toEqual([["Dana Weber", "thing"]]);
    expect(names("We asked Dana Weber first.", ["weber"])).toEqual([["Dana Weber", "person"]]);
    expect(names("It ships with React Native Web today.", ["react native"]).map(([name]) => name)).toEqual(["React Native Web"]);
  });

  test("a known name stays itself where a run does not extend it", () => {
    // A sentence's first word before a known name is the sentence's, not the name's.
    expect(names("Ask Dana about the rollout.", ["dana"])).toEqual([["Dana", "thing"]]);
    expect(names("Ask Dana Weber about the rollout.", ["dana"])).toEqual([["Dana Weber", "person"]]);
    // In lower case the run is the known name alone; a known name reaching past the run stays whole.
    expect(names("ask dana weber about it", ["dana"])).toEqual([["dana", "thing"]]);
    expect(names("ask Dana weber about it", ["dana weber"])).toEqual([["Dana weber", "thing"]]);
    expect(names("Staging DB Heron moved.", ["staging db heron moved"])).toEqual([["Staging DB Heron moved", "thing"]]);
    // Two known names side by side in a run that holds more: the run.
    expect(names("We asked Dana Weber Kenji.", ["dana", "kenji"])).toEqual([["Dana Weber Kenji", "person"]]);
  });

  test("a name's words have only spaces between them; a sentence ends before a closing quote too", () => {
    expect(names("Thanks, Calvin Harris. Sure, John, let's go.")).toEqual([["Calvin Harris", "person"], ["John", "thing"]]);
    expect(names('She said "see you at Savana." What a day.')).toEqual([["Savana", "thing"]]);
    // A known name is matched the same way: "dana, weber" is two words of a list, not "dana weber".
    expect(names("ping dana, weber and kenji", ["dana weber", "dana", "kenji"])).toEqual([
      ["dana", "thing"],
      ["kenji", "thing"],
    ]);
  });

  test("pronouns, their contractions, question words, quantifiers and greetings are no names", () => {
    expect(names("John: Hey Dave! I'm here, I\u2019ve seen it. What How Everyone Just Thanks")).toEqual([["Dave", "thing"]]);
    expect(names("Bye Sam, and Hi Priya Raman.")).toEqual([["Sam", "thing"], ["Priya Raman", "person"]]);
  });

  test("an everyday word opening a sentence is not part of the name after it, and one in capitals is a shout", () => {
    expect(everyday.has("life") && everyday.has("visit") && everyday.has("intense")).toBe(true);
    expect(["postgres", "docker", "kubernetes", "dana", "boston"].filter((w) => everyday.has(w))).toEqual([]);
    expect(names("Visit Tokyo in spring. It was so INTENSE, like DORA.", [], everyday)).toEqual([
      ["Tokyo", "thing"],
      ["DORA", "thing"],
    ]);
    // Without the everyday words the sentence's first word would be the name's.
    expect(names("Visit Tokyo in spring.")).toEqual([["Visit Tokyo", "person"]]);
  });

  test("a known one-word name that is an everyday word is a mention only where it is written as a name", () => {
    const known = ["apple", "work", "postgres"];
    expect(names("I switched to Apple. Work is busy; work on postgres and an apple pie.", known, everyday)).toEqual([
      ["Apple", "thing"],
      ["postgres", "thing"],
    ]);
    expect(knownKeysIn("what did I say about work and Apple?", (k) => known.includes(k), (w) => everyday.has(w))).toEqual(["apple"]);
    // Any case, for a name that is no everyday word, or without the everyday words.
    expect(knownKeysIn("work on postgres", (k) => known.includes(k))).toEqual(["work", "postgres"]);
  });

  test("a name an older version misread: a leading word no name starts with, or punctuation between its words", () => {
    for (const name of ["Hey John", "What's Scout", "Thanks, Calvin", "John, Let"]) expect(misreadName(name)).toBe(true);
    for (const name of ["John", "Dana Weber", "Ledger API", "kenji sato", "staging DB", "heron-8"]) expect(misreadName(name)).toBe(false);
  });

  test("whether the rules alone take a name, said inside a sentence", () => {
    for (const name of ["Dana Weber", "PostgreSQL", "John", "GitHub Actions", "Apple"]) expect(takenAsName(name, (w) => everyday.has(w))).toBe(true);
    for (const name of ["Hey John", "What's Scout", "Thanks, Calvin", "staging DB", "heron-8", "INTENSE"]) expect(takenAsName(name, (w) => everyday.has(w))).toBe(false);
  });

  test("keys set case, quotes, articles and possessives aside", () => {
    expect(nameKey("The Staging DB")).toBe("staging db");
    expect(nameKey("`heron-8`")).toBe("heron-8");
    expect(nameKey("Dana's")).toBe("dana");
    expect(nameKey("  C++ ")).toBe("c++");
  });
});

describe("claims", () => {
  test("'the X is <identifier>' claims X's value; 'the X is slow' claims nothing", () => {
    expect(claims("The staging DB is heron-7.")).toEqual([["staging db", "general.is", "heron-7"]]);
    expect(claims("Heads up: the staging DB is now heron-8, since Monday.")).toEqual([["staging db", "general.is", "heron-8"]]);
    expect(claims("our API port is 8080")).toEqual([["api port", "general.is", "8080"]]);
    expect(claims('the release branch is "rel/2026-12"')).toEqual([["release branch", "general.is", "rel/2026-12"]]);
    expect(claims("The build is slow and the linter is noisy.")).toEqual([]);
    // The value's capital is a capital: "slow" is not a name, whatever the case of the rest.
    expect(claims("The staging DB is slow. The Staging DB is Heron.")).toEqual([["staging db", "general.is", "Heron"]]);
  });

  test("a single plain word is no claim subject: it would make every later mention of the word an entity", () => {
    expect(claims("the linter is v3")).toEqual([]);
    expect(claims("the Linter is v3")).toEqual([["linter", "general.is", "v3"]]);
  });
});

describe("structured payloads and projects", () => {
  test("a payload's entity, type, aliases and attributes, its other scalar fields too; nested objects are not values", () => {
    const out = extract({
      content: "notes",
      structured: { entity: "Kenji Sato", entityType: "Person", aliases: ["ksato"], attributes: { role: "lead" }, team: "billing", nested: { a: 1 } },
      project: "billing",
    });
    expect(out.entities).toEqual([
      { name: "billing", key: "billing", type: "project", aliases: [] },
      { name: "Kenji Sato", key: "kenji sato", type: "person", aliases: ["ksato"] },
    ]);
    expect(out.claims.map((c) => [c.entity, c.aspect, c.slot, c.value, c.confidence])).toEqual([
      ["kenji sato", "attributes", "role", "lead", 0.9],
      ["kenji sato", "attributes", "team", "billing", 0.9],
    ]);
  });

  test("aspects by name, and a payload without an entity is no evidence of one", () => {
    const out = extract({ content: "x", structured: { entity: "ledger-api", aspects: { deploy: { region: "eu-west-1" } } }, project: null });
    expect(out.claims.map((c) => [c.aspect, c.slot, c.value])).toEqual([["deploy", "region", "eu-west-1"]]);
    expect(extract({ content: "x", structured: { query: "q", citations: [] }, project: null })).toEqual({ entities: [], claims: [] });
  });
});
