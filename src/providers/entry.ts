// What a provider offers tapedeck, each part in the provider's own folder and
// named here once: its <provider>/provider.ts fills one of these, and
// providers/catalog.ts lists them. A part it lacks is simply absent (no
// installer for a client whose hooks are configured by hand, no API usage
// reader for a wire format the proxy does not read).
import type { ProviderAdapter } from "../core/hook/provider.ts";
import type { ProxyMirror } from "../core/ports/proxy-extension.ts";
import type { ReplayDriver } from "../core/ports/replay-driver.ts";
import type { UsageFacts } from "../core/read/usage-facts.ts";
import type { ApiUsageReader } from "./api-usage.ts";
import type { ProviderDoctorCheck } from "./doctor.ts";
import type { HistoryReader } from "./history.ts";
import type { ProviderIdentity } from "./identity.ts";
import type { ProviderInstaller } from "./installer.ts";
import type { AgentLauncher } from "./launch.ts";
import type { TranscriptCheck } from "./transcripts.ts";
import type { ArgvHook, StatusLinePart } from "./types.ts";

export interface ProviderEntry {
  /** Its names in what tapedeck writes: the CLI's messages, the OTLP export, scenario exports. */
  identity: ProviderIdentity;
  /** Hook payloads to normalized events; also the name and the display name. */
  adapter: ProviderAdapter;
  /** `tapedeck install`: its hook settings, with the extras its flags add (`--mcp`, `--notify`). */
  installer?: ProviderInstaller;
  /** The proxy's archive feed: exact usage from the provider's API traffic. */
  apiUsage?: ApiUsageReader;
  /** `tapedeck doctor`: checks only this provider knows how to make. */
  doctorChecks?: readonly ProviderDoctorCheck[];
  /** `inspect` and `doctor --transcripts`: whether the agent's own transcript of a session survives. */
  transcripts?: () => Promise<TranscriptCheck>;
  /** `tapedeck replay` and `tapedeck experiment`: runs recorded prompts through the real CLI, isolated. */
  replay?: ReplayDriver;
  /**
   * The environment variables of one of its sessions (its config root, what it sets in the hooks and commands
   * it runs, the switches a replay's arm sets itself): a replay started from inside any agent inherits none.
   */
  sessionEnv?: readonly RegExp[];
  /**
   * `scenario export --to promptfoo`: the replay's command line as agent.cjs runs it without tapedeck, the
   * JavaScript source of an object `{ bin, args(session, first, config), newSession(), parse(stdout, session) }`
   * (and `totals: 'last'` where each turn reports the conversation's running total); scenario/promptfoo-agent.ts.
   */
  promptfooTurn?: string;
  /** The proxy's mirror of this provider's conversations (a backup in the agent's own transcript format). */
  mirror?: ProxyMirror;
  /** `tapedeck run <name>`: the agent started through the proxy. */
  launcher?: AgentLauncher;
  /** `tapedeck usage`: what its token figures mean and which calls no local record shows. */
  usage: UsageFacts;
  /** What it adds to the status line (a lost transcript's alert). */
  statusLine?: StatusLinePart;
  /** A capture path beside its hooks whose payload is an argument (Codex's notify program). */
  argvHook?: ArgvHook;
  /** `tapedeck import`: finds the agent's own past session files and maps their records to events. */
  history?: HistoryReader;
  /**
   * The tool names whose call starts a subagent (compared without case): the turn model nests the subagent
   * under that call in `show`, the viewer and the OTLP export.
   */
  subagentTools?: readonly string[];
}
