import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { findFreePort } from "@/server/http/free-port";

/**
 * A real Prometheus server (Debian's `prometheus` package, which .ci/run installs) on loopback, for metrics
 * tests: it scrapes every second the local back end's agents (its file_sd targets file, labelled namespace
 * / job_name / pod / node) and, when given, the operator's /metrics (with honor_labels, so the job's own
 * `namespace` and `job_name` labels stay as the operator wrote them, as deploy/prometheus does). No mock:
 * the queries run against real TSDB data. `stop()` may be called mid-test (a Prometheus that goes away);
 * it is idempotent.
 */
export type TestPrometheus = { url: string; port: number; stop(): Promise<void> };

export function prometheusConfig(opts: { targetsFile: string; operator?: string }): string {
  return [
    "global: { scrape_interval: 1s, evaluation_interval: 1s }",
    "scrape_configs:",
    "  - job_name: rebound-agents",
    `    file_sd_configs: [{ files: [${JSON.stringify(opts.targetsFile)}], refresh_interval: 1s }]`,
    ...(opts.operator
      ? [
          "  - job_name: rebound-operator",
          "    honor_labels: true",
          `    static_configs: [{ targets: [${JSON.stringify(opts.operator)}] }]`,
        ]
      : []),
    "",
  ].join("\n");
}

export async function startPrometheus(opts: {
  targetsFile?: string;
  /** A whole configuration instead of the one built from `targetsFile` and `operator`. */
  config?: string;
  /** host:port of the operator's /metrics (OPERATOR_PORT on one machine). */
  operator?: string;
  /** Default: a free one. */
  port?: number;
}): Promise<TestPrometheus> {
  const dir = await mkdtemp(path.join(tmpdir(), "rebound-prometheus-"));
  const port = opts.port ?? (await findFreePort());
  const config = path.join(dir, "prometheus.yml");
  await writeFile(config, opts.config ?? prometheusConfig({ targetsFile: opts.targetsFile ?? "", ...opts }));
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
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
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
  // Once started, an exit is a stop (ours, or the test's), not a failure to report.
  failed.catch(() => undefined);
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
      if (ready) return { url, port, stop };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`prometheus did not become ready:\n${stderr}`);
  } catch (error) {
    await stop();
    throw error;
  }
}
