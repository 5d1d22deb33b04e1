// Turning command-line flag values into request fields.
import { UsageError } from "./errors";

export function num(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new UsageError(`--${flag} ${JSON.stringify(value)} is not a number`);
  return n;
}

/** The filters `list` and `recall` share, as flags. */
export const filterArgs = {
  project: { type: "string", description: "Only this project" },
  type: { type: "string", description: "Only this type" },
  tags: { type: "string", commaList: true, description: "Only memories carrying all these comma-separated tags" },
  who: { type: "string", description: "Only this author" },
  since: { type: "string", description: "Created at or after this ISO time" },
  until: { type: "string", description: "Created at or before this ISO time" },
  pinned: { type: "boolean", description: "Only pinned (--pinned) or only unpinned (--no-pinned)" },
} as const;

interface FilterFlags {
  project?: string;
  type?: string;
  tags?: string;
  who?: string;
  since?: string;
  until?: string;
  pinned?: boolean;
}

export function filterFields(args: FilterFlags): FilterFlags {
  const { project, type, tags, who, since, until, pinned } = args;
  return { project, type, tags, who, since, until, pinned };
}
