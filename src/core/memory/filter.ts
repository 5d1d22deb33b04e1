// The one filter builder for the memories table, shared by the list (docs/api.md#get-apimemories) and
// recall (docs/api.md#request): both narrow their candidates with the same conditions.

/** What a list or a recall narrows by; every condition applies before any ranking or paging. */
export interface MemoryFilter {
  /** The caller's agent scope (its own agent, then the shared ones): always applied. */
  agentIds: string[];
  type?: string;
  /** A memory must carry every one of them, each matched exactly. */
  tags?: string[];
  project?: string;
  who?: string;
  since?: string;
  until?: string;
  pinned?: boolean;
  importanceMin?: number;
  /** true: forgotten memories instead of live ones (the list's `forgotten`; recall never sets it). */
  forgotten?: boolean;
}

/** The filter a request asks for, within the caller's agent scope. */
export function memoryFilter(agentIds: string[], request: Omit<MemoryFilter, "agentIds">): MemoryFilter {
  return {
    agentIds,
    type: request.type,
    tags: request.tags,
    project: request.project,
    who: request.who,
    since: request.since,
    until: request.until,
    pinned: request.pinned,
    importanceMin: request.importanceMin,
    forgotten: request.forgotten,
  };
}

/**
 * SQL conditions over the `memories` table under `alias`, and their parameters. Forgotten rows are
 * excluded unless `forgotten` asks for them alone: recall never shows them, and a list only when asked.
 */
export function filterSql(filter: MemoryFilter, alias = "memories"): { where: string; params: (string | number)[] } {
  const c = (column: string) => `${alias}.${column}`;
  const where = [`${c("deleted_at")} IS ${filter.forgotten ? "NOT NULL" : "NULL"}`, `${c("agent_id")} IN (${placeholders(filter.agentIds)})`];
  const params: (string | number)[] = [...filter.agentIds];
  const add = (sql: string, value: string | number) => {
    where.push(sql);
    params.push(value);
  };
  if (filter.type !== undefined) add(`${c("type")} = ?`, filter.type);
  if (filter.project !== undefined) add(`${c("project")} = ?`, filter.project);
  if (filter.who !== undefined) add(`${c("who")} = ?`, filter.who);
  if (filter.since !== undefined) add(`${c("created_at")} >= ?`, filter.since);
  if (filter.until !== undefined) add(`${c("created_at")} <= ?`, filter.until);
  if (filter.pinned !== undefined) add(`${c("pinned")} = ?`, filter.pinned ? 1 : 0);
  if (filter.importanceMin !== undefined) add(`${c("importance")} >= ?`, filter.importanceMin);
  if (filter.tags && filter.tags.length > 0) {
    // Tags are a set per memory (one memory_tags row each), so matching all of them is a count.
    where.push(
      `${c("seq")} IN (SELECT memory_seq FROM memory_tags WHERE tag IN (${placeholders(filter.tags)})
        GROUP BY memory_seq HAVING COUNT(*) = ?)`,
    );
    params.push(...filter.tags, filter.tags.length);
  }
  return { where: where.join(" AND "), params };
}

/** filterSql's `?` placeholders as PostgreSQL's `$1`, `$2`, ... (the SQL it builds holds no other `?`). */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function placeholders(values: readonly unknown[]): string {
  return values.map(() => "?").join(", ");
}
