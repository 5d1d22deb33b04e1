// Positional parameters for a PostgreSQL statement put together from parts (optional conditions):
// `p(value)` keeps the value and gives its `$n`, so numbering never goes wrong by hand.
export function parameters(): { values: unknown[]; p: (value: unknown) => string } {
  const values: unknown[] = [];
  return { values, p: (value) => `$${values.push(value)}` };
}
