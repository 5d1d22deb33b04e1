// Small fakes of the Bitwarden (`bw`) and 1Password (`op`) CLIs, written into a directory to put on
// the daemon's PATH. A mock because the real CLIs need their services and accounts, which cannot run
// here. They answer the documented commands Signet uses the way the real ones do:
// - `bw get <password|username|notes|totp|uri> <item> [--nointeraction]`: the field's value with no
//   newline; "Vault is locked." (exit 1) unless BW_SESSION is the unlocked session; "Not found." (exit 1)
//   for an unknown item.
// - `op read [--no-newline] op://vault/item/field`: the field's value (a newline unless --no-newline);
//   an [ERROR] line (exit 1) for an unknown reference.
// Each call is appended to `calls` in the directory, so tests can tell whether a CLI ran.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface FakeVaults {
  bwSession: string;
  /** item -> field -> value */
  bw: Record<string, Record<string, string>>;
  /** "vault/item/field" -> value */
  op: Record<string, string>;
}

function script(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}`);
  chmodSync(path, 0o755);
}

/** Writes `bw` and `op` into `dir/bin` (returned) with their vaults under `dir`. */
export function writeFakePasswordManagers(dir: string, vaults: FakeVaults): string {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  for (const [item, fields] of Object.entries(vaults.bw)) {
    for (const [field, value] of Object.entries(fields)) {
      mkdirSync(join(dir, "bw", item), { recursive: true });
      writeFileSync(join(dir, "bw", item, field), value);
    }
  }
  for (const [ref, value] of Object.entries(vaults.op)) {
    mkdirSync(join(dir, "op", ref, ".."), { recursive: true });
    writeFileSync(join(dir, "op", ref), value);
  }
  const calls = join(dir, "calls");
  script(
    join(bin, "bw"),
    `echo "bw $*" >> '${calls}'
[ "$1" = get ] || { echo "Invalid command: $1" >&2; exit 1; }
[ "$BW_SESSION" = '${vaults.bwSession}' ] || { echo "Vault is locked." >&2; exit 1; }
f='${dir}/bw/'"$3/$2"
[ -f "$f" ] || { echo "Not found." >&2; exit 1; }
cat "$f"
`,
  );
  script(
    join(bin, "op"),
    `echo "op $*" >> '${calls}'
[ "$1" = read ] || { echo "[ERROR] unknown command \\"$1\\" for \\"op\\"" >&2; exit 1; }
shift
nl=1
[ "$1" = --no-newline ] && { nl=0; shift; }
ref=\${1#op://}
f='${dir}/op/'"$ref"
[ -f "$f" ] || { echo "[ERROR] could not read secret '$1': not found" >&2; exit 1; }
cat "$f"
[ $nl = 1 ] && echo
exit 0
`,
  );
  return bin;
}
