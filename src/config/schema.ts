// One schema for every configuration key, with its default. agent.yaml, the environment and
// command-line flags all pass through it, so every mode sees the same validated shape.
import { z } from "zod";
import { AgentIdSchema, DEFAULT_AGENT_ID } from "../contracts/agent";

const port = z.number().int().min(1).max(65535);
const agentId = AgentIdSchema;
/** Where an llm or embedding provider is reached: a value fetch() cannot use would fail every call instead of the start. */
const httpUrl = z
  .string()
  .min(1)
  .refine((value) => URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol), {
    error: "must be an http:// or https:// URL, such as http://127.0.0.1:11434",
  });

export const ConfigSchema = z
  .object({
    daemon: z
      .object({
        port: port.default(3850),
        bind: z.string().min(1).default("127.0.0.1"),
        /** What clients use to reach the daemon; derived from bind/port when absent. */
        url: z.string().optional(),
        autostart: z.boolean().default(true),
        /** How long the CLI and signet-mcp wait for the daemon's answer to a request that sets no bound of its own. */
        requestTimeoutMs: z.number().int().min(100).default(10_000),
        /** Seconds a connection may stay silent before the daemon closes it (Bun's idle timeout; streams are exempt). */
        idleTimeoutS: z.number().int().min(1).max(255).default(10),
        maxBodyBytes: z.number().int().min(1024).max(256 * 1024 * 1024).default(1024 * 1024),
        /** Host names (besides the loopback names) a request's Host header may carry: docs/security.md. */
        allowedHosts: z.array(z.string().min(1)).default([]),
        /** Web origins (besides the daemon's own) whose pages may call the API. */
        allowedOrigins: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .prefault({}),
    /** Where the daemon keeps its data (docs/deploy.md): unset, the SQLite file in the data directory. */
    storage: z
      .object({
        /** A PostgreSQL database several daemons may share. */
        url: z
          .string()
          .regex(/^postgres(ql)?:\/\/\S+$/, "must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)")
          .optional(),
      })
      .strict()
      .prefault({}),
    agent: z.object({ id: agentId.default(DEFAULT_AGENT_ID) }).strict().prefault({}),
    agents: z
      .record(agentId, z.object({ readPolicy: z.enum(["private", "shared"]).default("private") }).strict())
      .default({}),
    auth: z
      .object({
        mode: z.enum(["local", "team", "hybrid"]).default("local"),
        // The token alone: a value with more words ("sgt_… # ci") would be sent as a header the daemon refuses.
        token: z.string().min(1).regex(/^\S+$/, { error: "must be the token alone, without spaces or other words" }).optional(),
        /** Per-token limit on mutations (docs/security.md#rate-limits); mutationsPerMinute 0 turns it off. */
        rateLimit: z
          .object({
            mutationsPerMinute: z.number().int().min(0).default(120),
            burst: z.number().int().min(1).default(30),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    embedding: z
      .object({
        provider: z.enum(["builtin", "ollama", "openai", "none"]).default("builtin"),
        model: z.string().min(1).optional(),
        baseUrl: httpUrl.optional(),
        dimensions: z.number().int().min(1).max(8192).optional(),
        /** For `openai`; OPENAI_API_KEY is used when absent. */
        apiKey: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    llm: z
      .object({
        provider: z.enum(["ollama", "openai", "anthropic"]).optional(),
        model: z.string().min(1).optional(),
        baseUrl: httpUrl.optional(),
        /** For `openai` and `anthropic`; OPENAI_API_KEY / ANTHROPIC_API_KEY are used when absent. */
        apiKey: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    bridge: z
      .object({
        callTimeoutMs: z.number().int().min(1).default(60_000),
        idleCloseMs: z.number().int().min(0).default(600_000),
        maxServers: z.number().int().min(1).default(16),
        /** The largest single message a bridged stdio server may send; a larger one closes it. */
        maxMessageBytes: z.number().int().min(64 * 1024).max(1024 * 1024 * 1024).default(16 * 1024 * 1024),
      })
      .strict()
      .prefault({}),
    analytics: z
      .object({
        trackAgentCalls: z.boolean().default(true),
        retentionDays: z.number().int().min(0).default(30),
        flushMs: z.number().int().min(10).default(1000),
        /** p95 latency thresholds in ms, keyed by "server" or "server/tool". */
        alerts: z.record(z.string(), z.number().positive()).default({}),
      })
      .strict()
      .prefault({}),
    secrets: z
      .object({
        provider: z.enum(["local", "bitwarden"]).default("local"),
        /** Secret exec jobs run in a bubblewrap sandbox where one works ("auto"), or never ("off"): docs/security.md#jobs. */
        sandbox: z.enum(["auto", "off"]).default("auto"),
        /** Without a sandbox, team and hybrid modes still run jobs queued with an API token. */
        execUnsandboxed: z.boolean().default(false),
        /** Absolute directories a sandboxed job may write (the rest of the file system is read-only to it). */
        execWritable: z.array(z.string().startsWith("/", "must be an absolute path")).default([]),
      })
      .strict()
      .prefault({}),
    acp: z.object({ allowedOrigins: z.array(z.string()).default([]) }).strict().prefault({}),
    /**
     * Presence and the live message stream (docs/config.md#crossagent). Not under `agents`, which is
     * a record keyed by agent id: a fixed key there would shadow an agent of that name.
     */
    crossAgent: z
      .object({
        /** A presence entry without a heartbeat for this long is gone. */
        presenceTtlS: z.number().int().min(1).max(7 * 24 * 3600).default(600),
        /** How often an open stream sends a keep-alive comment. */
        keepAliveS: z.number().int().min(1).max(3600).default(15),
      })
      .strict()
      .prefault({}),
    hooks: z.object({ sessionStartBudgetTokens: z.number().int().min(0).default(2000) }).strict().prefault({}),
    graph: z
      .object({
        /** A Dreaming pass runs for an agent once this many of its memories were extracted since its last. */
        dreamAfterMemories: z.number().int().min(1).max(1_000_000).default(100),
        /** ... or once extraction has been quiet this long with anything new. */
        dreamIdleS: z.number().int().min(1).max(7 * 24 * 3600).default(600),
        /** With an llm: apply the merges it proposes (and ask it in background passes too). */
        llmApply: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type ParsedConfig = z.output<typeof ConfigSchema>;
/** The resolved configuration: every key present, `daemon.url` always set. */
export type Config = ParsedConfig & { daemon: ParsedConfig["daemon"] & { url: string }; dataDir: string };
