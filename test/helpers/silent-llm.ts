// A local fake of the OpenAI chat API (a paid service stands behind the real one) that holds every
// call until its caller gives up on it: what a stopping daemon must not wait for.

/** An OpenAI-compatible chat server that holds every call until its caller aborts it (or the test ends). */
export function silentChat() {
  let calls = 0;
  const held = new Set<() => void>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // Never closed for idleness: only the caller's abort (or the test's end) ends a call.
    idleTimeout: 0,
    fetch(req) {
      calls++;
      return new Promise<Response>((resolve) => {
        const answer = () => resolve(Response.json({ choices: [{ message: { content: "too late" } }] }));
        held.add(answer);
        req.signal.addEventListener("abort", answer);
      });
    },
  });
  return {
    yaml: `llm:\n  provider: openai\n  model: fake\n  baseUrl: http://127.0.0.1:${server.port}\n  apiKey: sk-test\nembedding:\n  provider: none\n`,
    calls: () => calls,
    stop() {
      for (const answer of held) answer();
      server.stop(true);
    },
  };
}
