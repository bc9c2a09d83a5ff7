// Gemini CLI's turn in a promptfoo export's agent.cjs (scenario/promptfoo-agent.ts): the replay driver's
// command line (replay.ts) as plain JavaScript, run by promptfoo without tapedeck. The prompt goes on stdin;
// the first turn names the session, the next ones resume it; the usage is the last model's in its stats.
export const geminiPromptfooTurn = `{
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
}`;
