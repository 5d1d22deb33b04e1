// storage.url as logs, errors, /health and `signet doctor` show it: without the password wherever
// the URL carries one (its user info, or a query parameter Bun's client reads it from); and a URL
// Bun's client cannot decode is refused naming the key and the part at fault, never quoting the password.
import { describe, expect, test } from "bun:test";
import { displayedUrl, postgresUrlProblem, STORAGE_URL_KEY } from "../../src/config/storage-url";

describe("displayedUrl", () => {
  test("leaves out the password of the user info, keeping the user name", () => {
    expect(displayedUrl("postgres://signet:S3cretPassw0rd@db.internal:5432/signet")).toBe("postgres://signet@db.internal:5432/signet");
    expect(displayedUrl("postgresql://signet@127.0.0.1/signet")).toBe("postgresql://signet@127.0.0.1/signet");
  });

  test("masks the query parameters Bun's client takes a password or a key's passphrase from, in any case", () => {
    expect(displayedUrl("postgres://signet@127.0.0.1:47500/signet?password=S3cretPassw0rd")).toBe("postgres://signet@127.0.0.1:47500/signet?password=***");
    const shown = displayedUrl("postgres://signet@h/db?sslmode=require&PASSWORD=a1&sslpassword=b2&pass%77ord=c3&api_token=d4&client_secret=e5");
    expect(shown).toBe("postgres://signet@h/db?sslmode=require&PASSWORD=***&sslpassword=***&pass%77ord=***&api_token=***&client_secret=***");
  });

  test("keeps the other parameters as written, and drops the fragment", () => {
    expect(displayedUrl("postgres://signet@h/db?sslmode=verify-full&application_name=my%20app&flag#password=x")).toBe(
      "postgres://signet@h/db?sslmode=verify-full&application_name=my%20app&flag",
    );
  });

  test("a URL that cannot be parsed is shown as its scheme alone", () => {
    expect(displayedUrl("postgres://signet:S3cret@h:99999/db")).toBe("postgres://…");
    expect(displayedUrl("mysql://root:S3cret@h:99999/db")).toBe("mysql://…");
  });
});

describe("postgresUrlProblem", () => {
  test("a bad percent-escape in the password is named without quoting the password", () => {
    const problem = postgresUrlProblem("postgres://signet:pa%zz@127.0.0.1:47500/signet", STORAGE_URL_KEY);
    expect(problem).toBe(
      "storage.url (SIGNET_DATABASE_URL) postgres://signet@127.0.0.1:47500/signet is not a valid URL: its password has a bad percent-escape: a % starts two hex digits, so write a % itself as %25",
    );
  });

  test("a bad percent-escape elsewhere is quoted; escapes that are not UTF-8 are named", () => {
    expect(postgresUrlProblem("postgres://sig%zznet@h/db", "--to")).toBe(
      "--to postgres://sig%zznet@h/db is not a valid URL: its user name has a bad percent-escape (%zz): a % starts two hex digits, so write a % itself as %25",
    );
    expect(postgresUrlProblem("postgres://signet@h/100%", "--to")).toContain("its database name has a bad percent-escape (%)");
    expect(postgresUrlProblem("postgres://signet@h/caf%e9", "--to")).toContain("its database name has percent-escapes that are not UTF-8 text");
    expect(postgresUrlProblem("postgres://signet@%2Ftmp%zz/db", "--to")).toContain("its host has a bad percent-escape (%zz)");
  });

  test("a URL Bun's client decodes has none, nor does one left to the client's own error", () => {
    expect(postgresUrlProblem("postgres://signet:p%40ss%25@h:5432/caf%C3%A9?password=a%zz", STORAGE_URL_KEY)).toBeNull();
    expect(postgresUrlProblem("postgres://signet@h:99999/db", STORAGE_URL_KEY)).toBeNull();
  });
});
