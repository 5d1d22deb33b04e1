// Words a developer uses for the same operation or thing, for code search (docs/code.md#search): a
// question says "kill the server", the code says `terminate`; "throttle" meets `RateLimiter`. Each
// group is general programming vocabulary, not this repository's. Words are compared as the index's
// tokenizer stems them (Porter), so "stopped" and "stop" are one.
import { tokenize } from "../search/fts5-tokenizer";

const GROUPS = [
  "stop end halt kill terminate shutdown close quit abort",
  "delete remove drop prune purge clear erase",
  "create make new add build generate",
  "start launch spawn run boot begin open",
  "check verify validate ensure assert guard",
  "find search lookup locate resolve query",
  "read parse decode load",
  "write save store persist dump export serialize",
  "send post push emit publish notify deliver",
  "receive listen subscribe watch stream",
  "error failure fault exception problem",
  "limit cap throttle rate quota bound max",
  "status code",
  "order sort rank rerank reorder",
  "split chunk cut tokenize segment break",
  "combine merge fuse join",
  "config settings options configuration",
  "permission access credential auth role privilege",
  "encrypt cipher crypto seal",
  "upgrade migrate migration",
  "copy backup clone snapshot",
  "hide redact mask censor",
  "prefix beginning",
  "folder directory dir",
  "process pid subprocess",
  "message event notification",
  "request call invocation",
  "reject refuse deny forbid block",
  "print render format display show",
];

/** Built on first use: a process that never searches code never stems the groups. */
let related: Map<string, string[]> | undefined;

function relatedByStem(): Map<string, string[]> {
  if (related) return related;
  const map = new Map<string, string[]>();
  for (const group of GROUPS) {
    const stems = group.split(" ").map((word) => tokenize(word)[0]!);
    for (const stem of stems) {
      const others = map.get(stem) ?? [];
      for (const other of stems) if (other !== stem && !others.includes(other)) others.push(other);
      map.set(stem, others);
    }
  }
  return (related = map);
}

/** The stems of words that mean about what `stem` (a stem as tokenize gives it) means; [] for none. */
export function relatedStems(stem: string): readonly string[] {
  return relatedByStem().get(stem) ?? [];
}
