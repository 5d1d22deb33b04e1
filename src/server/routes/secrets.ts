// The secret store and secret exec (docs/api.md#secrets). No route returns a secret's value: names
// and timestamps, and jobs' redacted output. The guard asks for the owner's credentials first
// (credentialFor in guard.ts): the instance key or admin token to list and run, the admin token to set and remove.
import { invalidInput, notFound } from "../../contracts/errors";
import { SECRETS_API } from "../../contracts/secrets";
import { SECRET_NAME, SECRET_NAME_RULE } from "../../contracts/vocabulary";
import { callerFrom } from "../caller";
import { principalOf } from "../principal";
import type { DaemonContext } from "../context";
import { routes, serve } from "../serve";

function secretName(params: { name?: string | null }): string {
  const name = params.name ?? "";
  if (!SECRET_NAME.test(name)) throw invalidInput(`invalid secret name ${JSON.stringify(name.slice(0, 100))} in the path: a name is ${SECRET_NAME_RULE}`);
  return name;
}

export function secretRoutes(ctx: DaemonContext) {
  const { store, exec } = ctx.secrets;
  return routes(
    serve(SECRETS_API.list, () => ({ secrets: store.list() })),
    serve(SECRETS_API.set, ({ params, body }) => store.set(secretName(params), body.value)),
    serve(SECRETS_API.remove, ({ params }) => {
      const name = secretName(params);
      if (!store.remove(name)) throw notFound(`secret ${name}`);
      return { name, removed: true as const };
    }),
    serve(SECRETS_API.exec, async ({ body, request, set }) => {
      // A token's holder is not the account's owner: in the modes that hand tokens out, its job
      // must not see what the account sees (docs/security.md#jobs).
      const needsSandbox = ctx.config.auth.mode !== "local" && principalOf(request)?.kind === "token";
      const accepted = await exec.submit(body, { agentId: callerFrom(request).agentId, needsSandbox });
      set.status = 202;
      return accepted;
    }),
    serve(SECRETS_API.status, ({ params, request }) => exec.get(params.jobId ?? "", callerFrom(request).agentId)),
  );
}
