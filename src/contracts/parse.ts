// Turns a zod failure into one error a person can act on, naming each offending field.
import type { z } from "zod";
import { invalidInput } from "../core/errors";

export function describeZodError(error: z.ZodError, where = "request"): string {
  const parts = error.issues.map((issue) => {
    const field = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => (field ? `${field}.${k}` : k)).join(", ")}`;
    }
    if (issue.code === "invalid_type" && issue.input === undefined) return `${field || where}: is required`;
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
