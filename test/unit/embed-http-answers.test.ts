// What the HTTP embedding providers (core/embed/http.ts) make of a provider's answers, against a
// local fake provider standing in for the paid or remote APIs (test/helpers/shaped-embedder.ts): one
// model has one vector size; vectors with Infinity or all zeros are refused for their text; empty
// vectors are named as such; errors name the URL without its credentials and quote no key or
// password; a request in flight ends at once when the embedder is aborted. And the builtin model
// refuses an embedding.dimensions that is not its own.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { createEmbedder } from "../../src/core/embed/factory";
import { OllamaEmbedder, OpenAiEmbedder } from "../../src/core/embed/http";
import { EmbedRejectedError } from "../../src/core/embed/types";
import { startShapedEmbedder } from "../helpers/shaped-embedder";

const fake = startShapedEmbedder(64);
afterEach(() => {
  fake.shape = undefined;
  fake.failWith = undefined;
  fake.hold = undefined;
});
afterAll(() => fake.stop());

const failure = async (p: Promise<unknown>): Promise<Error> => {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
};

describe("one model, one vector size", () => {
  test("without embedding.dimensions, the first answer sets the size: another is a failure naming both", async () => {
    const e = new OllamaEmbedder("m", fake.url);
    expect((await e.embed(["my cat"]))[0]!.length).toBe(64);
    fake.shape = (_t, v) => [...v, 0, 0, 1];
    const err = await failure(e.embed(["a note about spreadsheets"]));
    expect(err).not.toBeInstanceOf(EmbedRejectedError);
    expect(err.message).toContain("returned 67-dimensional vectors");
    expect(err.message).toContain("m's vectors are 64-dimensional");
    expect(e.dimensions).toBe(64);
  });

  test("the size of the stored vectors, when told, is the size before any answer", async () => {
    const e = new OllamaEmbedder("m", fake.url);
    e.expectDimensions(48);
    expect((await failure(e.embed(["my cat"]))).message).toContain("returned 64-dimensional vectors; m's vectors are 48-dimensional");
  });

  test("with embedding.dimensions, that size is checked, and a stored size does not override it", async () => {
    const e = new OpenAiEmbedder("m", fake.url, 48, "sk-test");
    e.expectDimensions(64);
    expect((await e.embed(["my cat"]))[0]!.length).toBe(48);
    fake.shape = (_t, v) => v.slice(1);
    expect((await failure(e.embed(["my cat"]))).message).toContain("returned 47-dimensional vectors; embedding.dimensions says 48");
  });

  test("empty vectors are named as such; vectors of different sizes name the sizes", async () => {
    const e = new OllamaEmbedder("m", fake.url);
    fake.shape = () => [];
    expect((await failure(e.embed(["a", "b"]))).message).toBe("ollama returned empty vectors (no numbers)");
    fake.shape = (t, v) => (t === "b" ? v.slice(1) : v);
    expect((await failure(e.embed(["a", "b"]))).message).toBe("ollama returned vectors of mixed sizes (64, 63)");
  });
});

describe("unusable vectors", () => {
  test("a vector with Infinity, or all zeros, is refused for its text: never returned as a vector", async () => {
    const e = new OllamaEmbedder("m", fake.url);
    fake.shape = (t, v) => (t === "bad" ? v.map((x, i) => (i === 0 ? Infinity : x)) : v);
    const inf = await failure(e.embed(["good", "bad"]));
    expect(inf).toBeInstanceOf(EmbedRejectedError);
    expect(inf.message).toContain("not a finite number");
    expect(inf.message).toContain("text 2 of 2");
    fake.shape = (t, v) => (t === "bad" ? v.map(() => 0) : v);
    const zero = await failure(e.embed(["bad"]));
    expect(zero).toBeInstanceOf(EmbedRejectedError);
    expect(zero.message).toContain("all zeros");
    // Values beyond a float's range are Infinity once stored as one.
    fake.shape = (t, v) => (t === "bad" ? v.map((x, i) => (i === 0 ? 1e300 : x)) : v);
    expect(await failure(e.embed(["bad"]))).toBeInstanceOf(EmbedRejectedError);
    fake.shape = undefined;
    const [good] = await e.embed(["good"]);
    expect(Math.hypot(...good!)).toBeCloseTo(1, 5);
  });
});

describe("credentials in embedding.baseUrl", () => {
  test("errors name the URL without user name or password, and quote neither the key nor the password", async () => {
    const withCredentials = fake.url.replace("http://", "http://proxyuser:S3cret%21Pass@");
    const e = new OpenAiEmbedder("m", `${withCredentials}/v1`, undefined, "sk-test-key");
    expect(e.baseUrl).toBe(withCredentials);
    fake.failWith = 500;
    const err = await failure(e.embed(["my cat"]));
    expect(err.message).toContain(`${fake.url}/v1/embeddings answered 500`);
    for (const secret of ["proxyuser", "S3cret", "sk-test-key"]) expect(err.message).not.toContain(secret);
    // The request itself went out with the key.
    expect(fake.requests.at(-1)!.authorization).toBe("Bearer sk-test-key");
    const unreachable = await failure(new OllamaEmbedder("m", "http://proxyuser:S3cretPass@127.0.0.1:1").embed(["x"]));
    expect(unreachable.message).toContain("http://127.0.0.1:1/api/embed could not be reached");
    expect(unreachable.message).not.toContain("S3cretPass");
    expect(unreachable.message).not.toContain("proxyuser");
  });
});

describe("abort", () => {
  test("an answer past 32 MiB is a failure naming it, and the rest is left unread", async () => {
    // A provider that answers without end (a misconfigured URL, a stream gone wrong): 1 MiB chunks until the client stops reading.
    let sent = 0;
    const endless = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              sent += 1;
              controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    });
    try {
      for (const e of [new OllamaEmbedder("m", `http://127.0.0.1:${endless.port}`), new OpenAiEmbedder("m", `http://127.0.0.1:${endless.port}`, undefined, "sk-test")]) {
        const err = await failure(e.embed(["my cat"]));
        expect(err).not.toBeInstanceOf(EmbedRejectedError);
        expect(err.message).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\S+ answered more than 32 MiB \(200\): not an embedding answer$/);
      }
      // Read up to the limit, not on: the server stopped being asked for more. Each answer's 32 MiB
      // read, plus what the server had pulled ahead into loopback's socket buffers (several MiB on a
      // loaded machine); a read without the limit would never end.
      const after = sent;
      await Bun.sleep(100);
      expect(sent - after).toBeLessThan(8);
      expect(sent).toBeLessThan(2 * (32 + 16));
    } finally {
      endless.stop(true);
    }
  });

  test("ends a request in flight at once, and any later one", async () => {
    const e = new OllamaEmbedder("m", fake.url);
    fake.hold = () => true;
    const pending = failure(e.embed(["my cat"]));
    while (fake.open === 0) await Bun.sleep(5);
    e.abort();
    const err = await pending;
    // Answered by the abort while the fake still holds the request: not by the 30-second timeout.
    expect(fake.open).toBe(1);
    expect(err.message).toContain("cancelled");
    expect((await failure(e.embed(["again"]))).message).toContain("cancelled");
  });
});

describe("the builtin model", () => {
  test("refuses embedding.dimensions other than its 512, naming the key; 512 is fine", async () => {
    const err = await failure(createEmbedder({ provider: "builtin", dimensions: 256 }));
    expect(err.message).toContain("embedding.dimensions is 256");
    expect(err.message).toContain("512-dimensional");
    const ok = await createEmbedder({ provider: "builtin", dimensions: 512 });
    expect(ok!.dimensions).toBe(512);
    await ok!.close();
  });
});
