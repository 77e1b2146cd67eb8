import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { findFreePort } from "@/server/db/embedded";

/**
 * A real Prometheus server (Debian's `prometheus` package, which .ci/run installs) scraping file_sd targets
 * every second, on loopback, for metrics tests. No mock: the queries run against real TSDB data.
 */
export type TestPrometheus = { url: string; stop(): Promise<void> };

export async function startPrometheus(opts: { targetsFile: string }): Promise<TestPrometheus> {
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-prometheus-"));
  const port = await findFreePort();
  const config = path.join(dir, "prometheus.yml");
  await writeFile(
    config,
    [
      "global: { scrape_interval: 1s, evaluation_interval: 1s }",
      "scrape_configs:",
      "  - job_name: rebound-agents",
      `    file_sd_configs: [{ files: [${JSON.stringify(opts.targetsFile)}], refresh_interval: 1s }]`,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(
    "prometheus",
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    await rm(dir, { recursive: true, force: true });
  };
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "ENOENT"
          ? new Error("prometheus is not installed (apt-get install prometheus)")
          : error,
      ),
    );
    child.once("exit", (code) => reject(new Error(`prometheus exited (${code}):\n${stderr}`)));
  });
  const deadline = Date.now() + 30_000;
  try {
    while (Date.now() < deadline) {
      const ready = await Promise.race([
        fetch(`${url}/-/ready`).then(
          (r) => r.ok,
          () => false,
        ),
        failed,
      ]);
      if (ready) return { url, stop };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`prometheus did not become ready:\n${stderr}`);
  } catch (error) {
    await stop();
    throw error;
  }
}
