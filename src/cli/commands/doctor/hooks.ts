// tapedeck's hooks in a provider's settings file: present for every event, running an existing Node and
// dist/hook.cjs for the right provider, and none of the older direct http hooks. Entries are found with the code
// that writes them (the provider's installer, through providers/hooks-table.ts; the hook client's command
// through serve/client-command.ts).
import { accessSync, constants, existsSync } from "node:fs";
import { resolve } from "node:path";
import { readAgentFileText } from "../../../providers/agent-file.ts";
import type { FoundHook, ProviderInstaller } from "../../../providers/installer.ts";
import { parseHookCommand } from "../../../serve/client-command.ts";
import { providerName } from "../../providers.ts";
import { check, type DoctorCheck, shown } from "./check.ts";
import { shellWords } from "./shell-words.ts";

export type { FoundHook };

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function checkHookCommands(provider: string, found: FoundHook[]): DoctorCheck | undefined {
  const commands = [...new Set(found.filter((h) => h.command !== undefined).map((h) => h.command!))];
  if (commands.length === 0) return undefined;
  const problems: string[] = [];
  const targets = new Set<string>();
  for (const command of commands) {
    // Read with the code that wrote it: the Node hook (guarded), or the hook client and the Node hook it falls
    // back to; an older install's plain `'<node>' '<hook.cjs>' <provider>` through the shell lexer.
    const parsed = parseHookCommand(command);
    const client = parsed?.client;
    if (client && !existsSync(client.client))
      problems.push(`${client.client} does not exist (moved or not built?)`);
    const words = parsed ? [parsed.node, parsed.hook, ...parsed.args] : shellWords(command);
    if (!words || words.length < 2) {
      problems.push(`cannot read the hook command: ${command}`);
      continue;
    }
    // `'<node>' '<dist>/hook.cjs' [--statusline] <provider> # tapedeck`
    const [node, script, ...rest] = words;
    if (!isExecutable(node!)) problems.push(`${node} is not an executable Node.js`);
    if (!script!.endsWith("hook.cjs")) problems.push(`unexpected hook script ${script}`);
    else if (!existsSync(script!)) problems.push(`${script} does not exist (moved or not built?)`);
    else targets.add(script!);
    const named = rest.filter((w) => w !== "--statusline");
    if (named[0] !== provider) problems.push(`a hook records as "${named[0] ?? "?"}", not "${provider}"`);
  }
  if (problems.length > 0) {
    return check("hook command", "fail", [...new Set(problems)].join("; "), [
      `Reinstall from the tapedeck you use: tapedeck install ${provider}`,
    ]);
  }
  return check("hook command", "ok", `hooks run ${[...targets].join(", ")}`, undefined, {
    commands,
  });
}

export function checkHooks(
  project: string,
  provider: string,
  installer: ProviderInstaller | undefined,
  settingsOverride: string | undefined,
): { checks: DoctorCheck[]; found: FoundHook[] } {
  if (!installer) {
    return {
      checks: [
        check(
          "hooks",
          "warn",
          `tapedeck cannot check ${providerName(provider)}'s hooks (no installer for it)`,
        ),
      ],
      found: [],
    };
  }
  const path = settingsOverride ? resolve(settingsOverride) : installer.settingsPath(project);
  const name = shown(project, path);
  let text: string;
  try {
    text = readAgentFileText(path);
  } catch {
    return {
      checks: [
        check("hooks", "fail", `${name} is missing: no hook will record anything`, [
          `tapedeck install ${provider}${settingsOverride ? ` --settings ${settingsOverride}` : ""}`,
        ]),
      ],
      found: [],
    };
  }
  let settings: Record<string, unknown>;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    settings = parsed as Record<string, unknown>;
  } catch {
    return {
      checks: [
        check(
          "hooks",
          "fail",
          `${name} is not a JSON object: ${providerName(provider)} cannot read its hooks`,
          [`Fix ${name}, then: tapedeck install ${provider}`],
        ),
      ],
      found: [],
    };
  }
  const found = installer.find(settings);
  const count = installer.count(settings);
  const checks: DoctorCheck[] = [];
  if (count === 0) {
    checks.push(
      check("hooks", "fail", `no tapedeck hooks in ${name}`, [`tapedeck install ${provider}`], {
        file: path,
      }),
    );
    return { checks, found };
  }
  if (count < installer.hookEvents) {
    const events = [...new Set(found.map((h) => h.event))].sort();
    checks.push(
      check(
        "hooks",
        "fail",
        `${count} of ${installer.hookEvents} tapedeck hooks in ${name}: some events go unrecorded`,
        [`tapedeck install ${provider}`],
        { file: path, events },
      ),
    );
  } else {
    checks.push(
      check("hooks", "ok", `${count} of ${installer.hookEvents} hooks in ${name}`, undefined, { file: path }),
    );
  }
  const commands = checkHookCommands(provider, found);
  if (commands) checks.push(commands);
  const legacy = found.filter((h) => h.type === "http");
  if (legacy.length > 0) {
    // Claude's own http hooks: they print "hook failed" on the agent's screen whenever the server is down, and
    // their token sits in the settings file. The hook client replaced them.
    checks.push(
      check(
        "http hooks",
        "fail",
        `${legacy.length} hooks from an older tapedeck post to the server directly: they show errors when it is down`,
        [`tapedeck install ${provider}`],
      ),
    );
  }
  return { checks, found };
}
