// The installed MCP servers on both stores: the same registry rules over the daemon's SQLite file
// and over a real PostgreSQL (a throwaway cluster), so the two ServerRows cannot drift. On
// PostgreSQL also what only a shared store has: a server installed through one daemon is listed by
// another, and one name asked of two daemons at once is installed once.
import { describe, expect, test } from "bun:test";
import type { InstallServerRequest } from "../../src/contracts/bridge";
import { PostgresServerRows } from "../../src/core/bridge/postgres-registry";
import { ServerRegistry } from "../../src/core/bridge/registry";
import { SqliteServerRows } from "../../src/core/bridge/sqlite-registry";
import { postgresDatabases } from "../helpers/postgres-databases";
import { migratedDatabase } from "../helpers/sqlite";

const postgres = postgresDatabases();

const STORES: { name: string; available: boolean; open(): Promise<ServerRegistry> }[] = [
  { name: "SQLite", available: true, open: async () => new ServerRegistry(new SqliteServerRows(migratedDatabase())) },
  { name: "PostgreSQL", available: postgres.available, open: async () => new ServerRegistry(new PostgresServerRows((await postgres.database({ max: 2 }))())) },
];

const echo = (name: string, over: Partial<InstallServerRequest> = {}): InstallServerRequest => ({
  name,
  enabled: true,
  transport: { type: "stdio", command: "/usr/bin/echo", args: ["hi"], env: { MODE: "secret:MODE" } },
  ...over,
});

for (const kind of STORES) {
  describe.skipIf(!kind.available)(`installed servers on ${kind.name}`, () => {
    test("install keeps the transport as written; list, filter and get answer it; a second install of the name is refused", async () => {
      const registry = await kind.open();
      const stdio = await registry.install(echo("b-echo", { description: "says hi" }));
      expect(stdio).toMatchObject({ name: "b-echo", enabled: true, description: "says hi", transport: echo("b-echo").transport });
      expect(stdio.createdAt).toBe(stdio.updatedAt);
      await registry.install({ name: "a-web", enabled: false, transport: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "secret:TOKEN" } } });
      expect((await registry.list()).map((s) => s.name)).toEqual(["a-web", "b-echo"]);
      expect((await registry.list({ enabled: true })).map((s) => s.name)).toEqual(["b-echo"]);
      expect((await registry.list({ enabled: false })).map((s) => s.name)).toEqual(["a-web"]);
      expect(await registry.get("a-web")).toMatchObject({ transport: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "secret:TOKEN" } } });
      await expect(registry.install(echo("b-echo", { description: "another" }))).rejects.toMatchObject({ code: "exists" });
      expect((await registry.get("b-echo")).description).toBe("says hi");
    });

    test("update changes what it names, keeps the rest, and always moves updatedAt later; remove answers what it removed", async () => {
      const registry = await kind.open();
      const first = await registry.install(echo("echo"));
      const disabled = await registry.update("echo", { enabled: false });
      expect(disabled).toMatchObject({ enabled: false, transport: first.transport, description: null, createdAt: first.createdAt });
      expect(disabled.updatedAt > first.updatedAt).toBe(true);
      const moved = await registry.update("echo", { transport: { type: "http", url: "http://127.0.0.1:9/mcp", headers: {} }, description: "now remote" });
      expect(moved).toMatchObject({ enabled: false, description: "now remote", transport: { type: "http" } });
      expect(moved.updatedAt > disabled.updatedAt).toBe(true);
      expect(await registry.remove("echo")).toEqual(moved);
      expect(await registry.list()).toEqual([]);
      await expect(registry.get("echo")).rejects.toMatchObject({ code: "not_found" });
      await expect(registry.update("echo", { enabled: true })).rejects.toMatchObject({ code: "not_found" });
      await expect(registry.remove("echo")).rejects.toMatchObject({ code: "not_found" });
    });
  });
}

describe.skipIf(!postgres.available)("installed servers shared by daemons on one PostgreSQL", () => {
  test("a server installed through one daemon is listed by another; one name asked of both at once is installed once", async () => {
    const connect = await postgres.database({ max: 2 });
    const [a, b] = [new ServerRegistry(new PostgresServerRows(connect())), new ServerRegistry(new PostgresServerRows(connect()))];
    await a.install(echo("shared"));
    expect((await b.list()).map((s) => s.name)).toEqual(["shared"]);
    await b.update("shared", { enabled: false });
    expect((await a.get("shared")).enabled).toBe(false);
    for (let round = 0; round < 10; round++) {
      const name = `race-${round}`;
      const results = await Promise.allSettled([a.install(echo(name, { description: "a" })), b.install(echo(name, { description: "b" }))]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(refused.reason).toMatchObject({ code: "exists" });
      const won = (results.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ description: string }>).value.description;
      expect((await a.get(name)).description).toBe(won);
    }
  });
});
