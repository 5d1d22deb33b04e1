// Ranking signals beyond relevance. Each factor is at most 1, so the final score stays in 0-1 and
// relevance dominates: these only reorder close calls.
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ScoredRow {
  importance: number;
  pinned: number;
  created_at: string;
  access_count: number;
}

export function adjustedScore(relevance: number, row: ScoredRow, now: Date): number {
  const ageDays = Math.max(0, (now.getTime() - Date.parse(row.created_at)) / DAY_MS);
  const importance = 0.85 + 0.15 * row.importance;
  const pinned = row.pinned === 1 ? 1 : 0.95;
  const recency = 0.95 + 0.05 * Math.exp(-ageDays / 30);
  const access = 0.97 + 0.03 * Math.min(1, Math.log1p(row.access_count) / Math.log(50));
  return Math.min(1, Math.max(0, relevance * importance * pinned * recency * access));
}
