// Extraction (src/core/graph/extract.ts): which names become entities, of which type, and which
// sentences are claims, case by case; and the gazetteer's matching of names already known.
import { describe, expect, test } from "bun:test";
import { extract, knownKeysIn, nameKey } from "../../src/core/graph/extract";

const names = (content: string, known: string[] = []) =>
  extract({ content, structured: null, project: null, known: (k) => known.includes(k) }).entities.map((e) => [e.name, e.type]);
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
