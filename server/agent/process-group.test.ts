import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isProcessAlive, signalGroupOnly, signalProcessGroup } from "./process-group";

async function until(check: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
}

describe("process groups", () => {
  it("reaches a detached worker's children through its group", async () => {
    const child = spawn("sh", ["-c", "sleep 30 & echo $!; wait"], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const grandchild = await new Promise<number>((resolve) =>
      child.stdout.once("data", (d: Buffer) => resolve(Number(String(d).trim()))),
    );
    const leader = child.pid ?? 0;
    expect(isProcessAlive(grandchild)).toBe(true);
    expect(signalProcessGroup(leader, "SIGKILL")).toBe(true);
    expect(await until(() => child.exitCode !== null || child.signalCode !== null)).toBe(true);
    expect(await until(() => !isProcessAlive(grandchild))).toBe(true);
    expect(signalGroupOnly(leader, "SIGKILL")).toBe(false);
    expect(signalProcessGroup(leader, "SIGTERM")).toBe(false);
  });
});
