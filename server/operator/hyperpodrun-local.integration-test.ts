import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RANKS_UNREPORTED_NOTE } from "@/server/domain/console/job-ranks";
import { topologyView } from "@/server/services/jobs/job-view";
import { createSeededTestDatabase } from "@/test/database";
import { ensureHyperPodAgent, type HyperPodAgent } from "@/test/hyperpod-agent";
import { type HyperPodWorkDir, hyperpodrunJobYaml, hyperpodWorkDir } from "./testing/hyperpod-worker";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * AWS's unmodified `hyperpodrun` (test/hyperpod-agent.ts) run by the local back end (issue 17 item 5): a
 * job whose container command is `hyperpodrun …` runs that launcher, not our agent, and reaches Running
 * through the operator's /start; its /status lists no ranks, so the console's topology shows each rank
 * from its agent's state (running, healthy, not "0 healthy") with the note that per-rank detail is not
 * reported, and the live state counts them running. Under a root operator the pods run as an unprivileged
 * user, which runs the venv from the shared cache (/var/cache/rebound/hyperpod-agent).
 * The first run installs the agent (about 2.6 GB of wheels); later runs reuse it.
 */
const INSTALL_TIMEOUT_MS = 20 * 60_000;
const ref = { namespace: "hyperpod-ns-llm-research", name: "it-hyperpodrun" };
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let agent: HyperPodAgent;
let work: HyperPodWorkDir;
let ctl: string;

const jobYaml = () =>
  hyperpodrunJobYaml({
    ...ref,
    hyperpodrun: agent.hyperpodrun,
    work,
    replicas: 2,
    nproc: 1,
    spec: '  nprocPerNode: "1"\n',
  });

beforeAll(async () => {
  agent = await ensureHyperPodAgent();
  work = await hyperpodWorkDir("rebound-hyperpodrun-local-");
  ctl = work.ctl;
  database = await createSeededTestDatabase("it_hyperpodrun_local");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 2,
    gpusPerNode: 1,
    config: { stopTimeoutSeconds: 5 },
  });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await operator?.stop();
  await database?.drop();
  if (work) await rm(work.dir, { recursive: true, force: true });
}, 60_000);

/** The command line of a local pod's agent process. */
async function agentCommandLine(pod: { namespace: string; name: string }): Promise<string[]> {
  const pid = operator.backend.pods.pidOf(pod.namespace, pod.name);
  if (pid === null) return [];
  return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").filter(Boolean);
}

/** What the operator saw, the job's events and each agent's last log lines: why it did not run. */
async function diagnosis(): Promise<string> {
  const events = await operator.backend.listEvents(ref);
  const logs = await Promise.all(
    operator.backend.pods.list(ref).map(async (pod) => {
      const log = await operator.backend.podLogs(ref, pod.name, 40).catch((error: Error) => error.message);
      return `--- ${pod.name}\n${log}`;
    }),
  );
  const live = operator.live(ref);
  const status = (await operator.backend.getJob(ref))?.status;
  return [
    live?.phase,
    live?.status,
    JSON.stringify(status),
    JSON.stringify(live?.pods),
    JSON.stringify(events),
    ...logs,
  ].join("\n");
}

describe("the real hyperpodrun on the local back end", () => {
  it(
    "runs hyperpodrun itself and reaches Running, each worker with its rank of 2",
    async () => {
      await operator.submit(jobYaml());
      const live = await operator
        .waitFor(
          "Running with both agents running",
          () => {
            const job = operator.live(ref);
            const running = job?.pods.filter((pod) => pod.agentState === "running") ?? [];
            return job?.phase === "Running" && running.length === 2 ? job : null;
          },
          180_000,
        )
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\n${await diagnosis()}`);
        });
      // hyperpodrun's wire: no per-rank list.
      expect(live.pods.map((pod) => pod.ranks)).toEqual([[], []]);
      for (const pod of operator.backend.pods.list(ref)) {
        const argv = await agentCommandLine(pod);
        expect(argv.join(" ")).toContain(agent.hyperpodrun);
        expect(argv.join(" ")).not.toContain("rebound-agent");
      }
      const env = await operator.waitFor(
        "a worker's environment",
        async () => JSON.parse(await readFile(path.join(ctl, "env-0.json"), "utf8").catch(() => "null")),
        60_000,
      );
      expect(env).toMatchObject({ WORLD_SIZE: "2", NNODES: "2", JOB_RESTART_COUNT: "0" });
    },
    INSTALL_TIMEOUT_MS,
  );

  it("counts its ranks running: total 2, running 2", () => {
    const live = operator.live(ref);
    expect(live?.ranksTotal).toBe(2);
    expect(live?.ranksRunning).toBe(2);
  });

  it("shows its ranks running and healthy in the console, with the note", () => {
    const live = operator.live(ref);
    if (!live) throw new Error("no live state");
    const view = topologyView(live, operator.deps.live.nodes());
    expect(view.ranks.map((rank) => [rank.rank, rank.state, rank.health])).toEqual([
      [0, "running", "healthy"],
      [1, "running", "healthy"],
    ]);
    expect(view.note).toBe(RANKS_UNREPORTED_NOTE);
    expect(view.pods.map((pod) => pod.agentState)).toEqual(["running", "running"]);
  });
});
