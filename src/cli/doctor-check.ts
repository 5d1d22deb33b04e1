// One line of `signet doctor`'s report: an area, its status, what was found and what to do about it.

type Status = "ok" | "problem" | "note";

export interface Check {
  area: string;
  status: Status;
  detail: string;
  /** What to do about it: a problem's fix, or how to act on a note. */
  fix?: string;
}

const check = (status: Status) => (area: string, detail: string, fix?: string): Check => (fix ? { area, status, detail, fix } : { area, status, detail });
export const ok = check("ok");
export const problem = check("problem");
export const note = check("note");
