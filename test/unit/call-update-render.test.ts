// A bridged call's news as the terminal's status line shows it (`signet mcp <server> <tool>`).
import { expect, test } from "bun:test";
import { renderCallUpdate } from "../../src/cli/mcp/render";

test("progress with and without a total and a message; a task's status with and without its message", () => {
  expect(renderCallUpdate("build", { progress: 1, total: 3 })).toBe("build: 1/3 (33%)");
  expect(renderCallUpdate("build", { progress: 7 })).toBe("build: 7");
  expect(renderCallUpdate("build", { progress: 5, total: 4, message: "overran" })).toBe("build: 5/4 (100%) overran");
  expect(renderCallUpdate("build", { task: { taskId: "a", status: "working" } })).toBe("build: task working");
  expect(renderCallUpdate("build", { task: { taskId: "a", status: "failed", statusMessage: "disk full" } })).toBe("build: task failed: disk full");
});
