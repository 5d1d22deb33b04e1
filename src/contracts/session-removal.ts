// The answer of `DELETE /api/sessions/:key` (docs/api.md#delete-apisessionskey-admin-token): what was
// removed of one session, whichever agent held it. `signet doctor` removes its dry-run sessions so.
import { z } from "zod";
import { answer } from "./answer";

export const SessionRemovalResponseSchema = answer({
  key: z.string(),
  agentId: z.string().nullable().describe("The agent that held the session; null when only rows without a session were left under the key"),
  removed: answer({ session: z.number(), transcript: z.number(), memories: z.number(), presence: z.number(), messages: z.number() }).describe(
    "Rows removed: the session, its transcript, the memories that reached it (session_memories), its presence, and the records of messages given to it at a prompt",
  ),
});
export type SessionRemovalResponse = z.infer<typeof SessionRemovalResponseSchema>;
