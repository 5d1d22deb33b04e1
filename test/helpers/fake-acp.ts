// A small Agent Communication Protocol server for the relay tests: `POST /runs` takes
// `{agent_name, input: [{role, parts: [{content_type, content}]}], mode}` and answers a Run
// (`run_id`, `agent_name`, `status`, `output`, `error`), or an error `{code, message}` as the protocol
// describes. What it answers depends on the agent named:
//   echo     201 a run, status "created" (async mode), the text kept in `received`
//   failing  200 a run with status "failed" and error {code: "server_error", message}
//   missing  404 {code: "not_found", message}
//   broken   500 {code: "server_error", message}
//   slow     never answers within a test's timeout
export interface FakeAcp {
  url: string;
  received: { agentName: string; mode: unknown; role: unknown; contentType: unknown; text: string }[];
  stop(): Promise<void>;
}

export function startFakeAcp(): FakeAcp {
  const received: FakeAcp["received"] = [];
  let n = 0;
  const pendingSlow = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method !== "POST" || url.pathname !== "/runs") return Response.json({ code: "not_found", message: "no such route" }, { status: 404 });
      const body = (await request.json()) as { agent_name: string; mode?: string; input: { role: string; parts: { content_type: string; content: string }[] }[] };
      const part = body.input?.[0]?.parts?.[0];
      const runId = `run-${++n}`;
      switch (body.agent_name) {
        case "echo":
          received.push({ agentName: body.agent_name, mode: body.mode, role: body.input[0]!.role, contentType: part?.content_type, text: part?.content ?? "" });
          return Response.json({ agent_name: "echo", run_id: runId, session_id: null, status: "created", output: [], error: null }, { status: 202 });
        case "failing":
          return Response.json({ agent_name: "failing", run_id: runId, status: "failed", output: [], error: { code: "server_error", message: "the agent crashed" } });
        case "broken":
          return Response.json({ code: "server_error", message: "database on fire" }, { status: 500 });
        case "slow":
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, 10_000);
            pendingSlow.add(() => {
              clearTimeout(t);
              resolve();
            });
          });
          return Response.json({ agent_name: "slow", run_id: runId, status: "created", output: [], error: null });
        default:
          return Response.json({ code: "not_found", message: `agent ${body.agent_name} not found` }, { status: 404 });
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    async stop() {
      for (const release of pendingSlow) release();
      await server.stop(true);
    },
  };
}
