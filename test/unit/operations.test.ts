// The operation table (src/contracts/routes.ts, api.ts): every operation is documented, has the
// schemas its route says it takes, and the hook and the dashboard's page load the routes without
// the operations' schemas, so a prompt's hook evaluates no schema it does not parse.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { API, OPERATIONS } from "../../src/contracts/api";
import { ROUTES } from "../../src/contracts/routes";

const root = join(import.meta.dir, "..", "..");

test("docs/api.md names every operation by its method and path", async () => {
  const doc = await Bun.file(join(root, "docs/api.md")).text();
  const missing = OPERATIONS.map((op) => `${op.method} ${op.path}`).filter((route) => !doc.includes(route));
  expect(missing).toEqual([]);
});

test("each operation has the schema of the input its route takes, and only that one", () => {
  const wrong = Object.entries(API).flatMap(([area, ops]) =>
    Object.entries(ops as Record<string, (typeof OPERATIONS)[number]>)
      .filter(([, op]) => (op.takes === "body") !== (op.body !== undefined) || (op.takes === "query") !== (op.query !== undefined))
      .map(([key]) => `${area}.${key}`),
  );
  expect(wrong).toEqual([]);
  // The table of routes and the table of operations hold the same operations.
  expect(Object.fromEntries(Object.entries(API).map(([area, ops]) => [area, Object.keys(ops)]))).toEqual(
    Object.fromEntries(Object.entries(ROUTES).map(([area, ops]) => [area, Object.keys(ops)])),
  );
});

test("no two operations share a method and path", () => {
  const routes = OPERATIONS.map((op) => `${op.method} ${op.path.replace(/:[^/]+/g, ":")}`);
  expect(routes.filter((r, i) => routes.indexOf(r) !== i)).toEqual([]);
});

/** The source of `entry` bundled as the binary bundles it. */
async function bundled(entry: string): Promise<string> {
  const built = await Bun.build({ entrypoints: [join(root, entry)], target: "bun", packages: "bundle" });
  expect(built.success).toBe(true);
  return (await Promise.all(built.outputs.map((o) => o.text()))).join("\n");
}

test("the hook and the dashboard's page reach no operation's schemas: they run on the routes alone", async () => {
  // The bundler names each module it takes in a comment (`// src/contracts/memory.ts`).
  const contracts = join(root, "src/contracts");
  const declaring = readdirSync(contracts).filter((f) => readFileSync(join(contracts, f), "utf8").includes("operation(ROUTES."));
  expect(declaring.length).toBeGreaterThan(10);
  const schemaModules = ["api.ts", ...declaring].map((f) => `src/contracts/${f}`);
  expect(await bundled("src/server/routes/memory.ts")).toContain("// src/contracts/memory.ts");
  const hook = await bundled("src/cli/hook.ts");
  expect(hook).toContain("// src/contracts/routes.ts");
  expect(schemaModules.filter((m) => hook.includes(`// ${m}\n`))).toEqual([]);
  const page = await bundled("src/dashboard/main.ts");
  expect(page).toContain("// src/contracts/routes.ts");
  expect(page).not.toContain("node_modules/zod/");
});
