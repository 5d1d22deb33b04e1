// The secret store and secret exec (docs/api.md#secrets). No route returns a secret's value: names
// and timestamps, and jobs' redacted output. The guard asks for the owner's credentials first
// (credentialFor in guard.ts): the instance key or admin token to list and run, the admin token to set and remove.
import { Elysia } from "elysia";
import { invalidInput, notFound } from "../../contracts/errors";
import { parseInput } from "../../contracts/parse";
import {
  ExecRequestSchema,
  SECRET_NAME,
  SECRET_NAME_RULE,
  SetSecretRequestSchema,
  type ExecAccepted,
  type ExecJob,
  type RemoveSecretResponse,
  type SecretListResponse,
  type SetSecretResponse,
} from "../../contracts/secrets";
import { callerFrom } from "../caller";
import { principalOf } from "../principal";
import type { DaemonContext } from "../context";

function secretName(params: { name?: string | null }): string {
  const name = params.name ?? "";
  if (!SECRET_NAME.test(name)) throw invalidInput(`invalid secret name ${JSON.stringify(name.slice(0, 100))} in the path: a name is ${SECRET_NAME_RULE}`);
  return name;
}

export function secretRoutes(ctx: DaemonContext) {
  const { store, exec } = ctx.secrets;
  return new Elysia()
    .get("/api/secrets", (): SecretListResponse => ({ secrets: store.list() }))
    .put("/api/secrets/:name", ({ params, body }): SetSecretResponse => {
      const name = secretName(params);
      const { value } = parseInput(SetSecretRequestSchema, body, "secret");
      return store.set(name, value);
    })
    .delete("/api/secrets/:name", ({ params }): RemoveSecretResponse => {
      const name = secretName(params);
      if (!store.remove(name)) throw notFound(`secret ${name}`);
      return { name, removed: true };
    })
    .post("/api/secrets/exec", ({ body, request, set }): ExecAccepted => {
      const req = parseInput(ExecRequestSchema, body, "exec request");
      // A token's holder is not the account's owner: in the modes that hand tokens out, its job
      // must not see what the account sees (docs/security.md#jobs).
      const needsSandbox = ctx.config.auth.mode !== "local" && principalOf(request)?.kind === "token";
      const accepted = exec.submit(req, { agentId: callerFrom(request).agentId, needsSandbox });
      set.status = 202;
      return accepted;
    })
    .get("/api/secrets/exec/:jobId", ({ params, request }): ExecJob => exec.get(params.jobId, callerFrom(request).agentId));
}
