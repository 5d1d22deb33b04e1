// Who a caller is: an agent id, the same rule on every surface (docs/api.md#conventions).
import { z } from "zod";

export const AgentIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/, "agent ids are 1-128 characters of letters, digits and . _ : @ -");

/** The agent of a caller that names none. */
export const DEFAULT_AGENT_ID = "default";
