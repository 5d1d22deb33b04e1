// src/config/daemon-url.ts: SIGNET_DAEMON_URL must be an origin only (docs/config.md). Every rejected form
// must fail with a DaemonUrlError whose message names the problem; nothing falls back to localhost.
import { describe, expect, test } from "bun:test";
import { DaemonUrlError, isLoopbackHost, loopbackCandidates, parseDaemonUrl } from "../../src/config/daemon-url";

function rejection(value: string): DaemonUrlError {
  try {
    const result = parseDaemonUrl(value);
    throw new Error(`expected ${JSON.stringify(value)} to be rejected, got ${JSON.stringify(result)}`);
  } catch (err) {
    if (!(err instanceof DaemonUrlError)) throw err;
    return err;
  }
}

describe("accepted origins", () => {
  const accepted: [string, string][] = [
    ["http://127.0.0.1:3850", "http://127.0.0.1:3850"],
    ["http://127.0.0.1:3850/", "http://127.0.0.1:3850"],
    ["http://127.0.0.1", "http://127.0.0.1"],
    ["https://127.0.0.1:443", "https://127.0.0.1:443"],
    ["http://localhost:3850", "http://localhost:3850"],
    ["http://localhost", "http://localhost"],
    ["https://signet.example.com", "https://signet.example.com"],
    ["https://signet.example.com/", "https://signet.example.com"],
    ["https://my-host.internal:8443", "https://my-host.internal:8443"],
    ["http://10.0.0.1:1", "http://10.0.0.1:1"],
    ["http://10.0.0.1:65535", "http://10.0.0.1:65535"],
    ["http://[::1]:3850", "http://[::1]:3850"],
    ["http://[::1]", "http://[::1]"],
    ["http://[::1]:3850/", "http://[::1]:3850"],
    ["http://[fe80::1]:8080", "http://[fe80::1]:8080"],
    ["HTTP://LOCALHOST:3850", "http://localhost:3850"],
    ["Https://Example.COM", "https://example.com"],
    ["http://127.0.0.1:03850", "http://127.0.0.1:3850"],
  ];
  for (const [input, expected] of accepted) {
    test(`${input} -> ${expected}`, () => {
      expect(parseDaemonUrl(input)).toBe(expected);
    });
  }

  test("the normalized form parses to itself", () => {
    for (const [, expected] of accepted) expect(parseDaemonUrl(expected)).toBe(expected);
  });
});

describe("rejected forms name the problem", () => {
  const rejected: [label: string, value: string, problem: RegExp][] = [
    ["empty string", "", /empty/i],
    ["a path", "http://127.0.0.1:3850/api", /path/i],
    ["a deep path", "http://127.0.0.1:3850/api/memory/", /path/i],
    ["a double trailing slash", "http://127.0.0.1:3850//", /path/i],
    ["a query string", "http://127.0.0.1:3850?x=1", /query/i],
    ["a query string after a trailing slash", "http://127.0.0.1:3850/?x=1", /query/i],
    ["a fragment", "http://127.0.0.1:3850#frag", /fragment/i],
    ["a fragment after a trailing slash", "http://127.0.0.1:3850/#frag", /fragment/i],
    ["credentials user:pass@", "http://user:pass@127.0.0.1:3850", /credential/i],
    ["credentials user@", "http://user@127.0.0.1:3850", /credential/i],
    ["credentials with an empty user", "http://:pass@127.0.0.1", /credential/i],
    ["ftp scheme", "ftp://127.0.0.1:3850", /scheme/i],
    ["file scheme", "file:///etc/passwd", /scheme/i],
    ["javascript scheme", "javascript:alert(1)", /scheme/i],
    ["ws scheme", "ws://127.0.0.1:3850", /scheme/i],
    ["no scheme (host:port)", "127.0.0.1:3850", /scheme/i],
    ["no scheme (localhost:port)", "localhost:3850", /scheme/i],
    ["no scheme (//host)", "//127.0.0.1:3850", /scheme/i],
    ["leading whitespace", " http://127.0.0.1:3850", /scheme/i],
    ["port 0", "http://127.0.0.1:0", /port/i],
    ["port 65536", "http://127.0.0.1:65536", /port/i],
    ["port 99999", "http://127.0.0.1:99999", /port/i],
    ["port 00000", "http://127.0.0.1:00000", /port/i],
    ["a six-digit port", "http://127.0.0.1:123456", /port/i],
    ["a non-numeric port", "http://127.0.0.1:abc", /port/i],
    ["a negative port", "http://127.0.0.1:-1", /port/i],
    ["an empty port", "http://127.0.0.1:", /port/i],
    ["$(...) command substitution", "http://$(whoami):3850", /character/i],
    ["$(...) after the port", "http://127.0.0.1:3850$(id)", /character/i],
    ["${...} expansion", "http://${HOST}:3850", /character/i],
    ["a semicolon", "http://127.0.0.1:3850;reboot", /character/i],
    ["a backtick", "http://127.0.0.1`id`:3850", /character/i],
    ["a space", "http://127.0.0.1 :3850", /character/i],
    ["a trailing space", "http://127.0.0.1:3850 ", /character/i],
    ["a newline", "http://127.0.0.1:3850\ncurl evil", /character/i],
    ["&&", "http://127.0.0.1&&id", /character/i],
    ["a pipe", "http://127.0.0.1|nc", /character/i],
    ["a redirect", "http://127.0.0.1>out", /character/i],
    ["quotes", "http://'127.0.0.1'", /character/i],
  ];
  for (const [label, value, problem] of rejected) {
    test(`${label}: ${JSON.stringify(value)}`, () => {
      const err = rejection(value);
      expect(err.name).toBe("DaemonUrlError");
      expect(err.message).toMatch(problem);
      // The message quotes the offending value so a person can find it.
      expect(err.message).toContain(JSON.stringify(value));
    });
  }

  test("an empty host is rejected", () => {
    expect(rejection("http://").message).toMatch(/host/i);
  });

  test("dotted nonsense hosts are rejected", () => {
    for (const v of ["http://.example.com", "http://example.com.", "http://a..b"]) {
      expect(rejection(v).message).toMatch(/host/i);
    }
  });

  test("an unbracketed IPv6 address is rejected", () => {
    rejection("http://::1:3850");
  });

  test("never falls back to localhost: nothing invalid returns a value", () => {
    for (const [, value] of rejected) expect(() => parseDaemonUrl(value)).toThrow(DaemonUrlError);
  });
});

describe("loopbackCandidates", () => {
  test("localhost means 127.0.0.1 first, then [::1]", () => {
    expect(loopbackCandidates("http://localhost:3850")).toEqual(["http://127.0.0.1:3850", "http://[::1]:3850"]);
  });

  test("localhost without a port keeps no port", () => {
    expect(loopbackCandidates("http://localhost")).toEqual(["http://127.0.0.1", "http://[::1]"]);
  });

  test("the scheme is kept", () => {
    expect(loopbackCandidates("https://localhost:8443")).toEqual(["https://127.0.0.1:8443", "https://[::1]:8443"]);
  });

  test("any other host is tried alone", () => {
    expect(loopbackCandidates("http://127.0.0.1:3850")).toEqual(["http://127.0.0.1:3850"]);
    expect(loopbackCandidates("http://[::1]:3850")).toEqual(["http://[::1]:3850"]);
    expect(loopbackCandidates("https://example.com")).toEqual(["https://example.com"]);
  });

  test("works on the output of parseDaemonUrl", () => {
    expect(loopbackCandidates(parseDaemonUrl("HTTP://LocalHost:3850/"))).toEqual([
      "http://127.0.0.1:3850",
      "http://[::1]:3850",
    ]);
  });
});

describe("isLoopbackHost", () => {
  test("loopback hosts", () => {
    for (const h of ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) expect(isLoopbackHost(h)).toBe(true);
  });

  test("other hosts", () => {
    for (const h of ["0.0.0.0", "::", "10.0.0.1", "example.com", "128.0.0.1", "localhost.example.com"]) {
      expect(isLoopbackHost(h)).toBe(false);
    }
  });
});
