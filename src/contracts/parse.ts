// Turns a zod failure into one error a person can act on, naming each offending field.
import type { z } from "zod";
import { invalidInput } from "./errors";

function describeZodError(error: z.ZodError, where = "request"): string {
  const parts = error.issues.map((issue) => {
    const field = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => (field ? `${field}.${k}` : k)).join(", ")}`;
    }
    if (issue.code === "invalid_type") {
      // zod 4 reports a missing value as an invalid type whose message ends in "received undefined".
      if (/received undefined$/.test(issue.message)) return `${field || where}: is required`;
      if (!field) return `the body must be a JSON ${issue.expected}`;
      return `${field}: must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
    }
    if (issue.code === "invalid_union") {
      const expected = [...new Set(issue.errors.flatMap((e) => e.map((i) => (i.code === "invalid_type" ? i.expected : null))))];
      if (expected.length > 0 && !expected.includes(null)) return `${field || where}: must be ${expected.map((e) => `a ${e}`).join(" or ")}`;
    }
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  return `invalid ${where}: ${parts.join("; ")}`;
}

/** Validates `value` against `schema`, throwing an `invalid_input` error that names the fields. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where = "request"): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(describeZodError(result.error, where));
  return result.data;
}

/** `T` without undefined values: a key that may hold undefined becomes optional, the others stay as they are. */
type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** The object without its undefined values: strict schemas and the daemon see only what was given. */
export function defined<T extends Record<string, unknown>>(obj: T): Defined<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Defined<T>;
}
