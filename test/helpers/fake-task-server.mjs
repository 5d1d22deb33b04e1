// A minimal stdio MCP server whose one tool, `job`, declares `execution.taskSupport: "required"`:
// called as a task it ends after `ms` (150) `completed` (result "done") or, with `fail`, `failed`
// with `fail` as the status message. Started with `--no-tasks` it does not announce tasks for tools/call, so by
// the spec the tool is called plainly. No dependencies; it exits when its stdin closes.
import { createInterface } from "node:readline";

const announcesTasks = !process.argv.includes("--no-tasks");
const tools = [
  {
    name: "job",
    inputSchema: { type: "object", properties: { fail: { type: "string" }, ms: { type: "number" } } },
    execution: { taskSupport: "required" },
  },
];
const tasks = new Map();
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === "initialize") {
    const capabilities = { tools: {}, ...(announcesTasks ? { tasks: { requests: { tools: { call: {} } } } } : {}) };
    send({ id, result: { protocolVersion: params.protocolVersion, capabilities, serverInfo: { name: "fake-tasks", version: "1" } } });
  } else if (method === "tools/list") {
    send({ id, result: { tools } });
  } else if (method === "tools/call" && !params.task) {
    send({ id, result: { content: [{ type: "text", text: "ran without a task" }] } });
  } else if (method === "tools/call") {
    const now = new Date().toISOString();
    const task = { taskId: `t${tasks.size + 1}`, status: "working", ttl: null, createdAt: now, lastUpdatedAt: now, pollInterval: 50 };
    tasks.set(task.taskId, task);
    const { fail, ms = 150 } = params.arguments ?? {};
    setTimeout(() => Object.assign(task, fail ? { status: "failed", statusMessage: fail } : { status: "completed" }), ms);
    send({ id, result: { task } });
  } else if (method === "tasks/get") {
    send({ id, result: tasks.get(params.taskId) });
  } else if (method === "tasks/result") {
    send({ id, result: { content: [{ type: "text", text: "done" }] } });
  } else {
    send({ id, error: { code: -32601, message: `no method ${method}` } });
  }
});
