// Another local user (nobody) listening on a port of ours while our server is down: the attack of a shared
// machine. Whatever connects is logged (its first line and byte count) and answered with a 500.
import { spawn } from "node:child_process";

export interface Squatter {
  /** One line per connection the other user's program received: what arrived. */
  received(): string[];
  close(): Promise<void>;
}

export async function squatAsNobody(port: number): Promise<Squatter> {
  const script = `
    const net = require("node:net");
    const s = net.createServer((c) => {
      let got = Buffer.alloc(0);
      c.on("data", (d) => { got = Buffer.concat([got, d]); });
      c.on("end", () => process.stdout.write(JSON.stringify(got.toString("latin1").split("\\r\\n")[0] + " " + got.length) + "\\n"));
      c.on("error", () => {});
      c.end("HTTP/1.1 500 Squatting\\r\\ncontent-length: 0\\r\\n\\r\\n");
    });
    s.listen(${port}, "127.0.0.1", () => process.stdout.write("LISTENING\\n"));`;
  const child = spawn(
    "setpriv",
    ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script],
    { stdio: ["ignore", "pipe", "inherit"], cwd: "/" },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.startsWith("LISTENING\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`squatter exited ${code}: ${out}`)));
  });
  return {
    received: () => out.split("\n").slice(1).filter(Boolean),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.removeAllListeners("exit");
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
