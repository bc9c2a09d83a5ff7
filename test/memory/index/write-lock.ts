// Another process holding a write transaction on a SQLite file, for the tests of what this process may do
// meanwhile (read what was committed, or fail fast instead of waiting).
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach } from "vitest";

/**
 * At the top of a test file: `hold(path, statement)` starts a process that runs `statement` inside a write
 * transaction on `path` and keeps it open; answers once the lock is held. Every holder is killed after its test.
 */
export function useWriteLockHolders(): (path: string, statement: string) => Promise<ChildProcess> {
  const holders: ChildProcess[] = [];
  afterEach(() => {
    for (const c of holders.splice(0)) c.kill("SIGKILL");
  });
  return async (path, statement) => {
    const script = `const D=require("better-sqlite3");const d=new D(${JSON.stringify(path)});d.exec("BEGIN IMMEDIATE");d.exec(${JSON.stringify(statement)});process.stdout.write("locked\\n");setInterval(()=>{},1000);`;
    const child = spawn(process.execPath, ["-e", script], {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    holders.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
      child.on("exit", (code) => reject(new Error(`lock holder exited ${code}`)));
    });
    return child;
  };
}
