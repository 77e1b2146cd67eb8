import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { demoJobWanted, startDemo } from "./demo";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("REBOUND_DEMO: the demo job on a developer's machine, not in production", () => {
  it.each([
    ["auto", "development", true],
    ["auto", "test", true],
    ["auto", "production", false],
    ["always", "production", true],
    ["always", "development", true],
    ["never", "development", false],
    ["never", "production", false],
  ] as const)("%s with NODE_ENV=%s submits it: %s", (choice, nodeEnv, want) => {
    expect(demoJobWanted({ choice, nodeEnv })).toBe(want);
  });

  it("is off in the Docker image's start: its runtime stage sets NODE_ENV=production and leaves REBOUND_DEMO to auto", () => {
    const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    const env = Object.fromEntries(
      [...runtime.matchAll(/^ENV (.+)$/gm)].flatMap((line) =>
        (line[1] ?? "").split(/\s+/).map((pair) => pair.split("=") as [string, string]),
      ),
    );
    expect(env.NODE_ENV).toBe("production");
    expect(dockerfile).not.toMatch(/REBOUND_DEMO/);
    expect(runtime).toMatch(/^CMD \["node", "--import", "tsx", "scripts\/start\.ts"\]$/m);
    expect(demoJobWanted({ choice: "auto", nodeEnv: env.NODE_ENV ?? "" })).toBe(false);
  });
});

describe("npm start's demo in production", () => {
  it("asks the operator nothing and says why there is no demo job", async () => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const lines: string[] = [];
    try {
      const stop = await startDemo({
        operator: { url, token: "t" },
        choice: "auto",
        nodeEnv: "production",
        faultIntervalSeconds: 0.05,
        log: (line) => lines.push(line),
      });
      // Fault injection would have called within 50 ms.
      await new Promise((resolve) => setTimeout(resolve, 200));
      stop();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(asked).toEqual([]);
    expect(lines).toEqual(["no demo job in production (REBOUND_DEMO=always submits it)"]);
  });
});
