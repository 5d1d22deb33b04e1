// What `signet secret set` stores is exactly the value given, or nothing (docs/cli.md#secrets), with
// the compiled binary: stdin is read as bytes and taken only as UTF-8 (no byte order mark read as
// another encoding, no invalid byte replaced), a value with a NUL byte is refused without being
// repeated, and the hidden prompt, on a real terminal, refuses a paste of several lines rather than
// keep its first. Each stored value is checked by a job that prints its bytes in hex (not redacted).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, sandbox, type Sandbox } from "../helpers/binary";
import { jsonCall } from "../helpers/json-call";

const YAML = "embedding:\n  provider: none\nsecrets:\n  sandbox: \"off\"\n";

let s: Sandbox;
beforeAll(async () => {
  s = await sandbox(YAML);
  expect((await run(["daemon", "start"], { env: s.env })).code).toBe(0);
});
afterAll(async () => {
  await run(["daemon", "stop"], { env: s.env });
});

/** `signet secret set NAME` with these bytes on stdin. */
async function setFromStdin(name: string, bytes: Uint8Array<ArrayBuffer>): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([BIN, "secret", "set", name], { env: s.env, stdin: new Blob([bytes]), stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function names(): Promise<string[]> {
  return json(await run(["secret", "list"], { env: s.env })).secrets.map((x: { name: string }) => x.name);
}

/** The stored value's bytes in hex, as a job sees it in its environment. */
async function storedHex(name: string): Promise<string> {
  const url = `http://127.0.0.1:${s.port}`;
  const headers = { authorization: `Bearer ${readFileSync(join(s.dataDir, ".daemon", "admin.token"), "utf8").trim()}` };
  const queued = await jsonCall(url, "POST", "/api/secrets/exec", { command: "printf %s \"$V\" | od -An -tx1 | tr -d ' \\n'", secrets: { V: name } }, headers);
  expect(queued.status).toBe(202);
  for (;;) {
    const { body } = await jsonCall(url, "GET", `/api/secrets/exec/${queued.body.id}`, undefined, headers);
    if (body.status !== "queued" && body.status !== "running") {
      expect(body.status).toBe("completed");
      return body.stdout;
    }
    await Bun.sleep(20);
  }
}

test("stdin that is not UTF-8 is refused (exit 2) saying values are UTF-8 text and how to give binary data; nothing is stored", async () => {
  // FF FE looks like a UTF-16 byte order mark; 80 81 are bytes no UTF-8 text has.
  for (const bytes of [[0xff, 0xfe, 0x80, 0x41, 0x42], [0x80, 0x81, 0x41, 0x42]]) {
    const r = await setFromStdin("BINKEY", new Uint8Array(bytes));
    expect({ bytes, code: r.code }).toEqual({ bytes, code: 2 });
    expect(r.stderr).toContain("the value on stdin is not UTF-8 text");
    expect(r.stderr).toContain("`base64 key.der | signet secret set BINKEY`");
  }
  expect(await names()).not.toContain("BINKEY");
});

test("UTF-8 from stdin is stored byte for byte, a leading byte order mark included, less one final line break", async () => {
  const value = new TextEncoder().encode("\uFEFFcl\u00e9-\u20ac-\u{1F511}\n");
  const r = await setFromStdin("UTF8KEY", value);
  expect(r.code).toBe(0);
  expect(await storedHex("UTF8KEY")).toBe(Buffer.from(value.subarray(0, -1)).toString("hex"));
});

test("a value with a NUL byte is refused (exit 2) without being repeated; nothing is stored", async () => {
  const r = await setFromStdin("NULKEY", new TextEncoder().encode("ab\0TOPSECRET"));
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("must not contain a NUL byte");
  expect(r.stdout + r.stderr).not.toContain("TOPSECRET");
  expect(await names()).not.toContain("NULKEY");
});

// `script` gives the CLI a terminal (a pty), so the hidden prompt is what reads the value.
const SCRIPT = Bun.which("script");

/** `signet secret set NAME` on a terminal, `input` written at once once the prompt shows, as a paste arrives. */
async function atPrompt(name: string, input: string): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn([SCRIPT!, "-qec", `${BIN} secret set ${name}`, "/dev/null"], { env: s.env, stdin: "pipe", stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  const decoder = new TextDecoder();
  let out = "";
  const reader = proc.stdout.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    out += decoder.decode(read.value, { stream: true });
    if (out.includes(`value for ${name}:`)) break;
  }
  proc.stdin.write(input);
  await proc.stdin.flush();
  for (let read = await reader.read(); !read.done; read = await reader.read()) out += decoder.decode(read.value, { stream: true });
  const code = await proc.exited;
  proc.stdin.end();
  return { code, out };
}

test.skipIf(!SCRIPT)("the prompt refuses a paste of several lines (exit 2), saying to give it on stdin; one line with its line break is stored (skipped: no `script` to make a pty)", async () => {
  for (const paste of ["line-one\nline-two\n", "line-one\rline-two\r", "line-one\r\n\r\nline-three"]) {
    const r = await atPrompt("PASTED", paste);
    expect({ paste, code: r.code }).toEqual({ paste, code: 2 });
    expect(r.out).toContain("the value pasted has several lines, and the prompt takes one: nothing was stored");
    expect(r.out).toContain("`signet secret set PASTED < file`");
    expect(r.out).not.toContain("line-");
  }
  expect(await names()).not.toContain("PASTED");
  // Enter, as a terminal sends it, and a line pasted with its line break: the line is the value.
  for (const [input, name] of [["one-line\r", "TYPED"], ["one-line\r\n", "PASTED_LINE"]] as const) {
    const r = await atPrompt(name, input);
    expect({ input, code: r.code }).toEqual({ input, code: 0 });
    expect(await storedHex(name)).toBe(Buffer.from("one-line").toString("hex"));
  }
});
