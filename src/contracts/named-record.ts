// Records whose keys are names a caller chose: the environment variables of a secret exec job, a
// bridged server's env and headers. zod's record schema skips an own `__proto__` key without a word
// (an object built by assignment cannot hold one: `o["__proto__"] = v` sets or ignores the
// prototype), so a variable named so would be accepted and then silently not exist. It is refused
// instead, naming it (a POSIX environment allows the name; nothing here can carry it safely).
import { z } from "zod";

/** The one name an object built by assignment cannot hold as a key. */
const LOST_NAME = "__proto__";

const holdsLostName = (value: unknown): boolean => typeof value === "object" && value !== null && Object.hasOwn(value, LOST_NAME);

/** `z.record(key, value)` that refuses a `__proto__` key (400 naming the field and the name) instead of dropping it. */
export function namedRecord<K extends z.core.$ZodRecordKey, V extends z.core.SomeType>(key: K, value: V) {
  const record = z.record(key, value);
  return z
    .custom<z.input<typeof record>>((v) => !holdsLostName(v), `the name ${LOST_NAME} cannot be used: it would be lost, not set; choose another name`)
    .pipe(record);
}
