// What every route plugin is given: the configuration, the stores and the domain services.
import type { Config } from "../config/schema";
import type { AgentsService } from "../core/agents/service";
import type { Analytics } from "../core/analytics";
import type { BridgeService } from "../core/bridge/service";
import type { CodeIndexService } from "../core/code/service";
import type { EmbeddingWorker } from "../core/embed/worker";
import type { Secrets } from "../core/secrets";
import type { GraphService } from "../core/graph/service";
import type { MemoryService } from "../core/memory/service";
import type { RecallService } from "../core/recall/service";
import type { SessionService } from "../core/sessions/service";
import type { SourceService } from "../core/sources/service";
import type { Logger } from "../logger";
import type { McpStreamHub } from "../mcp/http";
import type { TokenService } from "../core/auth/tokens";
import type { RateLimits } from "../core/auth/rate-limit";
import type { OwnerCredentials } from "./credentials";
import type { DaemonStores } from "./stores";
import type { DaemonRoster } from "../core/cluster/roster";
import type { ChatModel } from "../core/llm/chat";

export interface DaemonContext {
  config: Config;
  /** The owner's admin token and instance key (.daemon/, 0600): what the guard checks. */
  credentials: OwnerCredentials;
  /** The stores the services run on: the SQLite file, or a PostgreSQL database daemons share. */
  stores: DaemonStores;
  /** On a shared store: the daemons sharing it (this one among them). */
  roster?: DaemonRoster;
  memory: MemoryService;
  recall: RecallService;
  /** Sessions the hooks report, transcripts, and memory feedback. */
  sessions: SessionService;
  embeddings: EmbeddingWorker;
  /** The knowledge graph: extraction behind the writes, Dreaming, and its reads (docs/api.md#knowledge-graph). */
  graph: GraphService;
  /** Document sources: files and directories the owner added, chunked and searchable (docs/api.md#sources). */
  sources: SourceService;
  /** Cross-agent presence, messages and their live streams (docs/api.md#cross-agent). */
  agents: AgentsService;
  startedAt: number;
  /** The port actually listened on (config may say 0 in tests). */
  port: number;
  /** Installed MCP servers, their live processes, and calls to their tools. */
  bridge: BridgeService;
  /** Invocation tracking: record every tool call here; the analytics API reads it. */
  analytics: Analytics;
  /** The secret store and secret exec jobs (docs/api.md#secrets). */
  secrets: Secrets;
  /** Open GET /mcp notification streams; broadcast server notifications here; closed at stop. */
  mcpStreams: McpStreamHub;
  /** The code indexes of the projects `signet index` recorded (docs/code.md#which-project-answers), read per request. */
  code: CodeIndexService;
  /** The daemon's one logger: everything it logs goes through here. */
  /** The configured llm (undefined when none is): every route that asks the model uses this one, whose calls the daemon's stop aborts. */
  llm?: ChatModel;
  log: Logger;
  /** API tokens for team and hybrid modes (docs/security.md#tokens). */
  tokens: TokenService;
  /** Per-token budgets of mutations (docs/security.md#rate-limits). */
  rateLimits: RateLimits;
  /** The TCP peer address of a request the server received (null for one built in process); set once listening. */
  peerAddress?: (request: Request) => string | null;
  /** Sets one request's idle timeout in seconds (0: none), for long answers and streams; set once listening. */
  setIdleTimeout?: (request: Request, seconds: number) => void;
}
