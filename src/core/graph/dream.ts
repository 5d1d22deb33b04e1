// Dreaming: one agent's graph consolidated from the evidence extraction left, without a model. It
// merges entities that are one (the same name; a lone first or last name that only one full name in
// the graph can be, when the two share a neighbour), gives an entity an older version misnamed
// ("Hey John") the longest of its names extraction takes, settles each slot on its newest evidence
// in each project (older values superseded, kept with their dates), relates entities mentioned
// together, queues memories whose reviewAfter has passed, decays the importance of memories long
// unused (never a pinned one's), and drops entities no memory mentions any more. It plans from what
// it read, then applies the plan in one transaction (or, dry, only reports it) and writes each
// action to the audit table. What it reads and writes goes through the store (store.ts); the
// planning here is its own.
import { yieldToLoop } from "../event-loop";
import { everydayWords } from "./everyday-words";
import { misreadName, nameKey, takenAsName } from "./extract";
import type { ChatModel } from "../llm/chat";
import { lookAlikes, proposeMerges, proposeSameSlots, type SlotCandidate } from "./proposals";
import type { PassClaim as Claim, Decay, GraphStore, PassGraph, PassWrites, SlotName } from "./store";

type DreamActionKind = "merge" | "name" | "propose" | "rename" | "supersede" | "reinstate" | "relate" | "review" | "decay" | "prune";

interface DreamAction {
  action: DreamActionKind;
  detail: Record<string, unknown>;
}

export interface DreamReport {
  id: number | null;
  agentId: string;
  dryRun: boolean;
  trigger: string;
  startedAt: string;
  durationMs: number;
  counts: Record<DreamActionKind, number>;
  actions: DreamAction[];
  /** The model step, when an llm was asked: its proposals applied, only reported, or why it failed. */
  llm?: { model: string; status: "applied" | "proposed" | "failed"; reason?: string };
}

export interface DreamOptions {
  dryRun: boolean;
  trigger: string;
  now: Date;
  /** The configured llm, to propose merges the rules leave apart (proposals.ts). */
  llm?: ChatModel;
  /** Apply what the llm proposes; otherwise it is only reported. */
  applyLlm?: boolean;
}

/** How many actions a report lists; the counts and the audit table have them all. */
const REPORT_ACTIONS = 200;

interface Entity {
  id: string;
  name: string;
  type: string;
  keys: string[];
  /** Its names as written, one a key. */
  names: string[];
  mentions: Set<number>;
  claims: number;
}

interface Plan {
  merges: { from: Entity; into: Entity; why: string }[];
  names: { entity: Entity; into: string }[];
  /** One entity's slots the llm said hold one attribute: `from`'s claims move to `into` (then the newest value stands). */
  renames: { entity: string; from: SlotName; into: SlotName }[];
  claims: { claim: Claim; status: Claim["status"]; validUntil: string | null; supersededBy: number | null }[];
  relations: { a: string; b: string; evidence: number; strength: number; isNew: boolean }[];
  /** Co-occurrences stored before whose entities no memory mentions together any more. */
  staleRelations: [string, string][];
  reviews: { seq: number; id: string; dueAt: string }[];
  decays: Decay[];
  /** Whether the decays come from the day's whole scan (recorded, so the next is a day later). */
  decayScanned: boolean;
  prunes: Entity[];
}

function load(graph: PassGraph): Map<string, Entity> {
  const entities = new Map<string, Entity>();
  for (const r of graph.entities) entities.set(r.id, { ...r, keys: [], names: [], mentions: new Set() });
  for (const r of graph.aliases) {
    const e = entities.get(r.entity_id);
    e?.keys.push(r.key);
    e?.names.push(r.alias);
  }
  for (const r of graph.mentions) entities.get(r.entity_id)?.mentions.add(r.memory_seq);
  return entities;
}

/** Each entity's co-mentioned entities, from the memories that mention them. */
function neighbours(entities: Map<string, Entity>): Map<string, Set<string>> {
  const byMemory = new Map<number, string[]>();
  for (const e of entities.values()) for (const seq of e.mentions) (byMemory.get(seq) ?? byMemory.set(seq, []).get(seq)!).push(e.id);
  const out = new Map<string, Set<string>>();
  for (const ids of byMemory.values()) {
    for (const a of ids) {
      const set = out.get(a) ?? out.set(a, new Set()).get(a)!;
      for (const b of ids) if (b !== a) set.add(b);
    }
  }
  return out;
}

/** Plans `from`'s merge into `into`: the rest of the plan sees them as one. */
function mergeInPlan(entities: Map<string, Entity>, merges: Plan["merges"], from: Entity, into: Entity, why: string): void {
  merges.push({ from, into, why });
  for (const seq of from.mentions) into.mentions.add(seq);
  into.keys.push(...from.keys);
  into.names.push(...from.names);
  into.claims += from.claims;
  if (into.type === "thing" && from.type !== "thing") into.type = from.type;
  entities.delete(from.id);
}

function planMerges(entities: Map<string, Entity>): Plan["merges"] {
  const merges: Plan["merges"] = [];
  const live = () => [...entities.values()];
  const merge = (from: Entity, into: Entity, why: string) => mergeInPlan(entities, merges, from, into, why);
  // The same name on two entities (a structured payload's alias met a name already known).
  const byKey = new Map<string, Entity[]>();
  for (const e of live()) for (const k of new Set(e.keys)) (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(e);
  for (const [key, group] of byKey) {
    const present = group.filter((e) => entities.has(e.id));
    if (present.length < 2) continue;
    const into = present.reduce((best, e) => (e.mentions.size > best.mentions.size ? e : best));
    for (const e of present) if (e !== into && entities.has(e.id)) merge(e, into, `both are called "${key}"`);
  }
  // A lone name ("Dana") that only one fuller name ("Dana Weber") can be, when both are seen with
  // something in common (a project, a person, a thing): two Danas, or none in common, stay apart.
  const near = neighbours(entities);
  for (const short of live()) {
    if (!entities.has(short.id)) continue;
    const shortKeys = short.keys.filter((k) => !k.includes(" "));
    if (shortKeys.length === 0 || short.type === "project") continue;
    const fuller = live().filter(
      (e) =>
        e !== short &&
        e.type !== "project" &&
        e.keys.some((k) => {
          const words = k.split(" ");
          return words.length > 1 && shortKeys.some((s) => words[0] === s || words[words.length - 1] === s);
        }),
    );
    if (fuller.length !== 1) continue;
    const into = fuller[0]!;
    const shared = [...(near.get(short.id) ?? [])].filter((n) => n !== into.id && near.get(into.id)?.has(n));
    if (shared.length === 0) continue;
    const names = shared.slice(0, 3).map((id) => entities.get(id)?.name ?? id);
    merge(short, into, `"${short.name}" can only be "${into.name}" here, and both are seen with ${names.join(", ")}`);
  }
  return merges;
}

const slotKey = (entity: string, aspect: string, slot: string) => JSON.stringify([entity, aspect, slot]);

/**
 * Each claim's slot as the plan sees it: its entity after the merges, its slot after the renames, in
 * the project of the memory it comes from. Projects keep their own values ("the staging DB" of one
 * project is not another's), and a global memory's claims stand apart from every project's: newer
 * evidence supersedes only claims of its own project, or, global, only global ones.
 */
function slotOf(c: Claim, redirect: Map<string, string>, renames: Plan["renames"]): string {
  const entity = redirect.get(c.entity_id) ?? c.entity_id;
  const renamed = renames.find((r) => r.entity === entity && r.from.aspect === c.aspect && r.from.slot === c.slot);
  const { aspect, slot } = renamed ? renamed.into : c;
  return JSON.stringify([c.project, entity, aspect, slot]);
}

function planClaims(rows: Claim[], redirect: Map<string, string>, renames: Plan["renames"]): Plan["claims"] {
  const slots = new Map<string, Claim[]>();
  for (const c of rows) {
    const key = slotOf(c, redirect, renames);
    (slots.get(key) ?? slots.set(key, []).get(key)!).push(c);
  }
  const changes: Plan["claims"] = [];
  for (const claims of slots.values()) {
    claims.sort((a, b) => (a.valid_from < b.valid_from ? -1 : a.valid_from > b.valid_from ? 1 : a.id - b.id));
    const current = claims[claims.length - 1]!.value;
    claims.forEach((c, i) => {
      // Superseded by the first later claim with another value; a claim of the current value stands.
      const next = c.value === current ? undefined : claims.slice(i + 1).find((later) => later.value !== c.value);
      const status = next ? "superseded" : "active";
      const validUntil = next ? next.valid_from : null;
      const supersededBy = next ? next.id : null;
      if (status !== c.status || validUntil !== c.valid_until || supersededBy !== c.superseded_by) {
        changes.push({ claim: c, status, validUntil, supersededBy });
      }
    });
  }
  return changes;
}

/** `stored`: the co-occurrences stored from the live entities, (from, to). */
function planRelations(stored: [string, string][], entities: Map<string, Entity>): Pick<Plan, "relations" | "staleRelations"> {
  const existing = new Set(stored.map(([a, b]) => `${a} ${b}`));
  const near = neighbours(entities);
  const out: Plan["relations"] = [];
  for (const [a, others] of near) {
    const ea = entities.get(a)!;
    for (const b of others) {
      if (a >= b) continue;
      const eb = entities.get(b)!;
      let evidence = 0;
      const [small, large] = ea.mentions.size <= eb.mentions.size ? [ea.mentions, eb.mentions] : [eb.mentions, ea.mentions];
      for (const seq of small) if (large.has(seq)) evidence++;
      const strength = evidence / Math.sqrt(ea.mentions.size * eb.mentions.size);
      out.push({ a, b, evidence, strength: Math.round(strength * 1000) / 1000, isNew: !existing.has(`${a} ${b}`) });
    }
  }
  const planned = new Set(out.map((r) => `${r.a} ${r.b}`));
  const staleRelations = [...existing].filter((pair) => !planned.has(pair)).map((pair) => pair.split(" ") as [string, string]);
  return { relations: out, staleRelations };
}

/**
 * Entities named by an older version's misreading ("Hey John", extract.ts misreadName), each with the
 * longest of its other names extraction takes ("John"). A name a payload gave stays.
 */
function planNames(entities: Map<string, Entity>, takes: (name: string) => boolean): Plan["names"] {
  const out: Plan["names"] = [];
  for (const e of entities.values()) {
    // A project's name is its own; an entity the pass prunes needs none.
    if (e.type === "project" || (e.mentions.size === 0 && e.claims === 0) || !misreadName(e.name)) continue;
    const into = [...new Set(e.names)].filter(takes).sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0))[0];
    if (into !== undefined) out.push({ entity: e, into });
  }
  return out;
}

/** Where each merged entity's evidence goes: a chain (a into b, b into c) lands on the last. */
function redirectOf(merges: Plan["merges"]): Map<string, string> {
  const redirect = new Map(merges.map((m) => [m.from.id, m.into.id]));
  for (const [from, into] of redirect) {
    let target = into;
    while (redirect.has(target)) target = redirect.get(target)!;
    redirect.set(from, target);
  }
  return redirect;
}

/** Unused this long, an unpinned memory's importance starts to decay... */
const DECAY_AFTER_DAYS = 30;
/** ... halving every this many days more, ... */
const DECAY_HALF_LIFE_DAYS = 180;
/** ... down to this share of what it was; a change smaller than DECAY_STEP is not written. */
const DECAY_FLOOR = 0.25;
const DECAY_STEP = 0.01;
/** At most this many per pass, the largest changes first: an old store's first decay spreads over several days. */
const DECAYS_PER_PASS = 10_000;
const DECAY_SCAN_MS = 86_400_000;
/** Memories (by seq) a step of the scan looks at. */
const DECAY_SCAN_STEP = 20_000;

/**
 * Importance decays with time since last use (an access by recall, else creation); pinned memories
 * never decay, and a memory used again gets its importance back. The importance decayed from is the
 * memory's own at its current version: a change of the memory starts again from its new importance.
 * Importance moves slowly (half-lives of months), so a whole scan of the agent's memories for decay
 * runs once a day, a range of them at a time with a turn of the event loop between; every pass gives
 * importance back to the decayed memories used again since.
 */
async function planDecays(store: GraphStore, agentId: string, now: Date): Promise<{ decays: Plan["decays"]; scanned: boolean }> {
  const last = await store.decayedAt(agentId);
  const scan = last === null || now.getTime() - Date.parse(last) >= DECAY_SCAN_MS;
  const rule = {
    now: now.toISOString(),
    scan,
    afterDays: DECAY_AFTER_DAYS,
    halfLifeDays: DECAY_HALF_LIFE_DAYS,
    floor: DECAY_FLOOR,
    step: DECAY_STEP - 1e-9,
  };
  const top = await store.topSeq();
  const decays: Plan["decays"] = [];
  for (let after = 0; after < top; after += DECAY_SCAN_STEP) {
    if (after > 0) await yieldToLoop();
    decays.push(...(await store.decays(agentId, rule, after, after + DECAY_SCAN_STEP)));
  }
  decays.sort((a, b) => Math.abs(b.to - b.from) - Math.abs(a.to - a.from) || a.seq - b.seq);
  return { decays: decays.slice(0, DECAYS_PER_PASS), scanned: scan };
}

/**
 * One pass over `agentId`'s graph; a dry run only reports it. Planning yields to the event loop
 * between its steps (at 100,000 memories a pass reads for about half a second), so the daemon
 * answers meanwhile; what extraction writes in between is for the next pass.
 */
export async function dream(store: GraphStore, agentId: string, options: DreamOptions): Promise<DreamReport> {
  const started = performance.now();
  const startedAt = options.now.toISOString();
  const entities = load(await store.passGraph(agentId));
  await yieldToLoop();
  const merges = planMerges(entities);
  const everyday = await everydayWords();
  const names = planNames(entities, (name) => takenAsName(name, (w) => everyday.has(w)));
  const claimRows = await store.passClaims(agentId);
  const asked = options.llm ? await askModel(options.llm, entities, merges, claimRows, options.applyLlm === true) : null;
  const redirect = redirectOf(merges);
  const renames = asked?.renames ?? [];
  await yieldToLoop();
  const claims = planClaims(claimRows, redirect, renames);
  await yieldToLoop();
  const relations = planRelations(await store.coOccurrences([...entities.keys()]), entities);
  await yieldToLoop();
  const { decays, scanned: decayScanned } = await planDecays(store, agentId, options.now);
  await yieldToLoop();
  const plan: Plan = {
    merges,
    names,
    renames,
    claims,
    ...relations,
    reviews: await store.dueForReview(agentId, startedAt),
    decays,
    decayScanned,
    prunes: [...entities.values()].filter((e) => e.mentions.size === 0 && e.claims === 0),
  };
  const actions: DreamAction[] = [
    ...(asked?.proposed ?? []),
    ...plan.renames.map((r) => ({
      action: "rename" as const,
      detail: { entity: r.entity, from: `${r.from.aspect}.${r.from.slot}`, into: `${r.into.aspect}.${r.into.slot}`, why: `proposed by ${options.llm?.label}` },
    })),
    ...plan.merges.map((m) => ({ action: "merge" as const, detail: { from: m.from.id, fromName: m.from.name, into: m.into.id, intoName: m.into.name, why: m.why } })),
    ...plan.names.map((n) => ({ action: "name" as const, detail: { entity: n.entity.id, from: n.entity.name, into: n.into, why: "an older version misread its name" } })),
    ...plan.claims.map((c) => ({
      action: c.status === "superseded" ? ("supersede" as const) : ("reinstate" as const),
      detail: { claim: c.claim.id, slot: `${c.claim.aspect}.${c.claim.slot}`, value: c.claim.value, validUntil: c.validUntil, supersededBy: c.supersededBy },
    })),
    ...plan.relations
      .filter((r) => r.isNew)
      .map((r) => ({ action: "relate" as const, detail: { from: r.a, to: r.b, type: "co-occurs", evidence: r.evidence, strength: r.strength } })),
    ...plan.reviews.map((r) => ({ action: "review" as const, detail: { memory: r.id, dueAt: r.dueAt } })),
    ...plan.decays.map((d) => ({ action: "decay" as const, detail: { memory: d.id, from: d.from, to: d.to } })),
    ...plan.prunes.map((e) => ({ action: "prune" as const, detail: { entity: e.id, name: e.name } })),
  ];
  const counts = { merge: 0, name: 0, propose: 0, rename: 0, supersede: 0, reinstate: 0, relate: 0, review: 0, decay: 0, prune: 0 } satisfies Record<DreamActionKind, number>;
  for (const a of actions) counts[a.action]++;
  let id: number | null = null;
  if (!options.dryRun) {
    await yieldToLoop();
    const record = { trigger: options.trigger, startedAt, finishedAt: new Date().toISOString(), summary: JSON.stringify(counts) };
    id = await store.applyPass(agentId, writesOf(plan), record);
    await writeAudit(store, id, actions);
  }
  return {
    id,
    agentId,
    dryRun: options.dryRun,
    trigger: options.trigger,
    startedAt,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    counts,
    actions: actions.slice(0, REPORT_ACTIONS),
    ...(asked ? { llm: asked.meta } : {}),
  };
}

/** Slots shown to the model at most. */
const MAX_SLOTS = 40;

/** The current value of each slot of the entities with more than one, the most mentioned entities first. */
function slotCandidates(entities: Map<string, Entity>, claims: Claim[], redirect: Map<string, string>): SlotCandidate[] {
  const latest = new Map<string, Claim & { entity: string }>();
  for (const c of claims) {
    const entity = redirect.get(c.entity_id) ?? c.entity_id;
    const key = slotKey(entity, c.aspect, c.slot);
    const had = latest.get(key);
    if (!had || had.valid_from < c.valid_from || (had.valid_from === c.valid_from && had.id < c.id)) latest.set(key, { ...c, entity });
  }
  const byEntity = new Map<string, (Claim & { entity: string })[]>();
  for (const c of latest.values()) (byEntity.get(c.entity) ?? byEntity.set(c.entity, []).get(c.entity)!).push(c);
  return [...byEntity.entries()]
    .filter(([id, slots]) => slots.length > 1 && entities.has(id))
    .sort(([a], [b]) => entities.get(b)!.mentions.size - entities.get(a)!.mentions.size)
    .flatMap(([id, slots]) => slots.map((c) => ({ entityId: id, entityName: entities.get(id)!.name, aspect: c.aspect, slot: c.slot, value: c.value })))
    .slice(0, MAX_SLOTS);
}

interface Asked {
  proposed: DreamAction[];
  renames: Plan["renames"];
  meta: NonNullable<DreamReport["llm"]>;
}

/**
 * The model step (proposals.ts): the look-alike names the rules left apart, and the slots of entities
 * with several. What it proposes is planned (merges, renames) when `apply`, or reported as `propose`
 * actions. Null when there was nothing to ask.
 */
async function askModel(llm: ChatModel, entities: Map<string, Entity>, merges: Plan["merges"], claims: Claim[], apply: boolean): Promise<Asked | null> {
  const asked: Asked = { proposed: [], renames: [], meta: { model: llm.label, status: apply ? "applied" : "proposed" } };
  const failures: string[] = [];
  const why = `proposed by ${llm.label}`;
  const howToApply = "signet dream --apply, or graph.llmApply: true";
  const names = lookAlikes([...entities.values()].map((e) => ({ id: e.id, name: e.name, type: e.type, keys: [...new Set(e.keys)], mentions: e.mentions.size })));
  if (names.length >= 2) {
    const { proposals, error } = await proposeMerges(llm, names);
    if (error) failures.push(error);
    for (const p of proposals) {
      const [from, into] = [entities.get(p.from.id), entities.get(p.into.id)];
      if (!from || !into) continue;
      if (apply) mergeInPlan(entities, merges, from, into, why);
      else asked.proposed.push({ action: "propose", detail: { merge: from.id, fromName: from.name, into: into.id, intoName: into.name, why, apply: howToApply } });
    }
  }
  const slots = slotCandidates(entities, claims, redirectOf(merges));
  if (slots.length >= 2) {
    const { proposals, error } = await proposeSameSlots(llm, slots);
    if (error) failures.push(error);
    for (const p of proposals) {
      const rename = { entity: p.from.entityId, from: { aspect: p.from.aspect, slot: p.from.slot }, into: { aspect: p.into.aspect, slot: p.into.slot } };
      if (apply) asked.renames.push(rename);
      else {
        asked.proposed.push({
          action: "propose",
          detail: { sameSlot: p.from.entityName, entity: rename.entity, from: `${p.from.aspect}.${p.from.slot}`, into: `${p.into.aspect}.${p.into.slot}`, why, apply: howToApply },
        });
      }
    }
  }
  if (names.length < 2 && slots.length < 2) return null;
  if (failures.length > 0) asked.meta = { model: llm.label, status: "failed", reason: failures.join("; ") };
  return asked;
}

/** Audit rows per transaction, with a turn of the event loop between: a large pass writes tens of thousands. */
const AUDIT_STEP = 2_000;

/** Every action of pass `id`, after the pass itself committed (the pass's row in graph_dreams has its counts). */
async function writeAudit(store: GraphStore, id: number, actions: DreamAction[]): Promise<void> {
  for (let i = 0; i < actions.length; i += AUDIT_STEP) {
    if (i > 0) await yieldToLoop();
    await store.audit(id, actions.slice(i, i + AUDIT_STEP).map((a) => ({ action: a.action, detail: JSON.stringify(a.detail) })));
  }
}

/** What the store writes of a plan. */
function writesOf(plan: Plan): PassWrites {
  return {
    merges: plan.merges.map((m) => ({ from: m.from.id, into: m.into.id, type: m.into.type })),
    names: plan.names.map((n) => ({ entity: n.entity.id, name: n.into, drop: nameKey(n.entity.name) === nameKey(n.into) ? null : nameKey(n.entity.name) })),
    renames: plan.renames,
    claims: plan.claims.map((c) => ({ id: c.claim.id, status: c.status, validUntil: c.validUntil, supersededBy: c.supersededBy })),
    relations: plan.relations,
    staleRelations: plan.staleRelations,
    reviews: plan.reviews.map((r) => ({ ...r, reason: `reviewAfter ${r.dueAt} has passed` })),
    decays: plan.decays,
    decayScanned: plan.decayScanned,
    prunes: plan.prunes.map((e) => e.id),
  };
}
