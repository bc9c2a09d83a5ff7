// agent.cjs of a promptfoo export: a promptfoo JavaScript provider that plays the test's conversation (the
// chat-format prompt, a JSON array of messages) as one session of the scenario's agent CLI in ./workspace:
// one CLI turn per user message, each resuming the session the one before started, the last turn's answer
// graded. promptfoo's own agent providers (anthropic:claude-agent-sdk, openai:codex-sdk) take one prompt
// string, so a conversation given to them arrives as its JSON text in a single turn. The command lines are
// the replay drivers' (src/providers/*/replay.ts), measured with the real CLIs: the prompt on stdin, never
// on the command line.

const TURNS = String.raw`const TURN = {
  claude: {
    bin: 'claude',
    args: (session, first, config) => [
      '-p', '--output-format', 'json', '--permission-mode', 'bypassPermissions',
      ...(first ? ['--session-id', session] : ['--resume', session]),
      ...(config.model ? ['--model', String(config.model)] : []),
      ...(config.max_budget_usd ? ['--max-budget-usd', String(config.max_budget_usd)] : []),
    ],
    newSession: () => randomUUID(),
    parse(stdout, session) {
      const r = JSON.parse(stdout);
      if (r.is_error) throw new Error('claude reported an error (' + (r.subtype || 'error') + ')');
      const u = r.usage || {};
      return {
        session: r.session_id || session,
        output: typeof r.result === 'string' ? r.result : '',
        prompt: (u.input_tokens || 0) + (u.cache_read_input_tokens || 0) + (u.cache_creation_input_tokens || 0),
        completion: u.output_tokens || 0,
        cost: r.total_cost_usd || 0,
      };
    },
  },
  codex: {
    bin: 'codex',
    args: (session, first) =>
      first
        ? ['exec', '--json', '--dangerously-bypass-hook-trust', '--', '-']
        : ['exec', 'resume', '--json', '--dangerously-bypass-hook-trust', '--', session, '-'],
    newSession: () => undefined,
    // turn.completed carries the thread's running total: the last one is the conversation's.
    totals: 'last',
    parse(stdout, session) {
      const events = stdout.split('\n').filter((l) => l.trim() !== '').map((l) => { try { return JSON.parse(l); } catch { return {}; } });
      const failed = events.find((e) => e.type === 'turn.failed');
      if (failed) throw new Error('codex: the turn failed (' + String((failed.error && failed.error.message) || '').slice(0, 200) + ')');
      const started = events.find((e) => e.type === 'thread.started');
      const answer = events.filter((e) => e.type === 'item.completed' && e.item && e.item.type === 'agent_message').pop();
      const usage = (events.filter((e) => e.type === 'turn.completed').pop() || {}).usage || {};
      return {
        session: (started && started.thread_id) || session,
        output: answer ? String(answer.item.text || '') : '',
        prompt: usage.input_tokens || 0,
        completion: usage.output_tokens || 0,
        cost: 0,
      };
    },
  },
  gemini: {
    bin: 'gemini',
    args: (session, first, config) => [
      '-o', 'json', '--yolo',
      ...(first ? ['--session-id', session] : ['--resume', session]),
      ...(config.model ? ['-m', String(config.model)] : []),
    ],
    newSession: () => randomUUID(),
    parse(stdout, session) {
      const r = JSON.parse(stdout);
      if (r.error) throw new Error('gemini reported an error');
      const models = Object.values((r.stats && r.stats.models) || {});
      const tokens = (models.pop() || {}).tokens || {};
      return {
        session: r.session_id || session,
        output: typeof r.response === 'string' ? r.response : '',
        prompt: tokens.prompt || tokens.input || 0,
        completion: tokens.candidates || 0,
        cost: 0,
      };
    },
  },
};`;

const RUNNER = String.raw`const MAX_OUTPUT = 16 * 1024 * 1024;

/** The user messages of a chat-format prompt, in order; a prompt that is not one is a single message. */
function userTurns(prompt) {
  let messages;
  try {
    messages = JSON.parse(prompt);
  } catch {
    return [prompt];
  }
  if (!Array.isArray(messages)) return [prompt];
  const text = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => (b && typeof b.text === 'string' ? b.text : '')).join('\n') : '');
  return messages.filter((m) => m && m.role === 'user').map((m) => text(m.content)).filter((t) => t !== '');
}

function runTurn(bin, args, input, cwd, signal) {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], ...(signal ? { signal } : {}) });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { if (out.length < MAX_OUTPUT) out += d; });
    child.stderr.on('data', (d) => { err = (err + d).slice(-4096); });
    child.on('error', (e) => resolve({ code: null, out, err: err + String(e.message || e) }));
    child.on('close', (code, sig) => resolve({ code: code === null ? sig : code, out, err }));
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

class TapedeckConversation {
  constructor(options) {
    this.options = options || {};
    this.config = this.options.config || {};
  }

  id() {
    return this.options.id || 'tapedeck-conversation:' + CLI;
  }

  async callApi(prompt, context, callOptions) {
    const cli = TURN[CLI];
    if (!cli) return { error: 'agent.cjs knows no command line for ' + CLI + ': use a promptfoo provider of your own' };
    const bin = this.config.bin || cli.bin;
    const cwd = path.resolve(__dirname, this.config.working_dir || 'workspace');
    if (!fs.existsSync(cwd)) return { error: cwd + ' does not exist: make it with tapedeck scenario export --with-workspace, or a clone of the project at the scenario revision' };
    const turns = userTurns(prompt);
    let session = cli.newSession();
    const sum = { prompt: 0, completion: 0, cost: 0 };
    let output = '';
    for (let i = 0; i < turns.length; i += 1) {
      const r = await runTurn(bin, cli.args(session, i === 0, this.config), turns[i], cwd, callOptions && callOptions.abortSignal);
      if (r.code !== 0) return { error: bin + ' exited with ' + r.code + ' on turn ' + (i + 1) + ' of ' + turns.length + ': ' + r.err.trim().slice(-1000) };
      let t;
      try {
        t = cli.parse(r.out, session);
      } catch (e) {
        return { error: 'turn ' + (i + 1) + ' of ' + turns.length + ': ' + (e instanceof SyntaxError ? bin + ' printed no JSON result' : e.message) };
      }
      session = t.session;
      output = t.output;
      if (cli.totals === 'last') Object.assign(sum, { prompt: t.prompt, completion: t.completion });
      else Object.assign(sum, { prompt: sum.prompt + t.prompt, completion: sum.completion + t.completion });
      sum.cost += t.cost;
    }
    return {
      output,
      tokenUsage: { prompt: sum.prompt, completion: sum.completion, total: sum.prompt + sum.completion, numRequests: turns.length },
      ...(sum.cost > 0 ? { cost: sum.cost } : {}),
      metadata: { session_id: session, turns: turns.length },
    };
  }
}

module.exports = TapedeckConversation;`;

export function conversationProvider(cli: string): string {
  return [
    `// Generated by tapedeck scenario export: a promptfoo provider that plays the conversation as one ${cli} session`,
    "// in ./workspace, a CLI turn per user message, each resuming the one before; the last answer is graded.",
    "'use strict';",
    "const { spawn } = require('node:child_process');",
    "const { randomUUID } = require('node:crypto');",
    "const fs = require('node:fs');",
    "const path = require('node:path');",
    "",
    `const CLI = ${JSON.stringify(cli)};`,
    TURNS,
    "",
    RUNNER,
    "",
  ].join("\n");
}
