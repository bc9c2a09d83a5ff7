// Claude Code's turn in a promptfoo export's agent.cjs (scenario/promptfoo-agent.ts): the replay driver's
// command line (replay.ts) as plain JavaScript, run by promptfoo without tapedeck. The prompt goes on stdin;
// the first turn names the session, the next ones resume it; the usage is claude -p's JSON result's.
export const claudePromptfooTurn = `{
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
}`;
