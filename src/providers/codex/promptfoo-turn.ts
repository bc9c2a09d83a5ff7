// Codex CLI's turn in a promptfoo export's agent.cjs (scenario/promptfoo-agent.ts): the replay driver's
// command line (replay.ts) as plain JavaScript, run by promptfoo without tapedeck. The prompt goes on stdin
// (`-`); the thread id comes from exec --json's thread.started, and later turns resume it.
export const codexPromptfooTurn = String.raw`{
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
}`;
