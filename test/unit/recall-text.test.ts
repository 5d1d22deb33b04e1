// The keyword leg's text handling: questions become an OR of meaningful terms; identifiers, paths
// and CJK text get extra index terms so they can be found by their parts.
import { describe, expect, test } from "bun:test";
import { indexTerms, matchExpression } from "../../src/core/search/text";

describe("matchExpression", () => {
  test("ORs the meaningful words of a question, never ANDs them", () => {
    expect(matchExpression("When did Caroline go to the LGBTQ support group?")).toBe('"caroline" OR "lgbtq" OR "support" OR "group"');
  });
  test("a query of stopwords only still searches for them", () => {
    expect(matchExpression("who is he")).toBe('"who" OR "is" OR "he"');
  });
  test("words that say nothing of a subject are left out too: a stopword's other forms, \"every\", and \"one\" (stemmed \"on\")", () => {
    expect(matchExpression("one-liner that gets the rows going")).toBe('"liner" OR "rows"');
    expect(matchExpression("count every csv")).toBe('"count" OR "csv"');
  });
  test("identifiers add their parts; quotes are escaped; empty queries give null", () => {
    expect(matchExpression("getUserName")).toBe('"getusername" OR "get" OR "user" OR "name"');
    expect(matchExpression('say "hi"')).toBe('"say" OR "hi"');
    expect(matchExpression("?!? ...")).toBeNull();
    expect(matchExpression("")).toBeNull();
  });
  test("CJK runs become bigrams; a single character stays itself", () => {
    expect(matchExpression("咖啡店")).toBe('"咖啡店" OR "咖啡" OR "啡店"');
    expect(matchExpression("猫")).toBe('"猫"');
  });
  test("FTS5 syntax in the query is data, not operators", () => {
    expect(matchExpression("NEAR(x y) OR c*")).toBe('"near" OR "x" OR "y" OR "c"');
  });
});

describe("indexTerms", () => {
  test("splits camelCase, snake_case and digits; adds CJK bigrams and characters", () => {
    expect(indexTerms("parseHTTPResponse2 snake_case_name")).toBe("parse http response 2 snake case name");
    expect(indexTerms("我喜欢")).toBe("我喜 喜欢 我 喜 欢");
    expect(indexTerms("plain words only")).toBe("");
  });
});
