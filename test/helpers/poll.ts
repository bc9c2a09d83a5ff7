// Waiting on what another process does: a hook server coming up or going away, an agent's late write.

/** Polls `cond` every `everyMs` until it holds (true) or `ms` have passed (false). */
export async function until(cond: () => boolean, ms = 5000, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return true;
}

/** Whether `pid` runs: another user's process refuses the signal (EPERM) but is alive. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
