import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { faultScope } from "@/components/charts/timeline-text";
import type { JobRef } from "@/server/cluster/types";
import { timelineEntries } from "@/server/services/jobs/job-view";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { createSeededTestDatabase } from "@/test/database";
import { ensureHyperPodAgent, type HyperPodAgent } from "@/test/hyperpod-agent";
import { type HyperPodWorkDir, hyperpodrunJobYaml, hyperpodWorkDir } from "./testing/hyperpod-worker";
import { type LocalOperator, startLocalOperator } from "./testing/local-operator";

/**
 * Rank attribution under AWS's unmodified `hyperpodrun` (test/hyperpod-agent.ts) run by the local back end
 * (issue 33 item 4): 2 pods × 2 ranks, `kill -9` of local rank 1 in the pod at group rank 1. The agent
 * lists no ranks; its /status says WorkerCrash, "Local Rank 1 exited with code -9"; the restart record
 * names global rank 3 alone (not the pod's 2–3) and the timeline reads "rank 3". A log rule's hang names
 * no rank (LogHang_<rule>): its record lists none and the timeline says the pod. `--tee=3` writes the
 * workers' output where the agent's log rules read it. The first run installs the agent (about 2.6 GB of
 * wheels); later runs reuse it.
 */
const INSTALL_TIMEOUT_MS = 20 * 60_000;
const ref: JobRef = { namespace: "hyperpod-ns-llm-research", name: "it-hyperpodrun-ranks" };
let database: { url: string; drop: () => Promise<void> };
let operator: LocalOperator;
let agent: HyperPodAgent;
let work: HyperPodWorkDir;
let ctl: string;

/**
 * Writes its pid to `pid-<RANK>-<JOB_RESTART_COUNT>` and prints a step line every 0.2 s, none while
 * `quiet-<RANK>` exists (a hang for the log rule).
 */
const WORKER_PY = `
import os, sys, time

ctl = sys.argv[1]
name = os.path.join(ctl, "pid-%s-%s" % (os.environ["RANK"], os.environ.get("JOB_RESTART_COUNT", "none")))
with open(name + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.replace(name + ".tmp", name)
quiet = os.path.join(ctl, "quiet-" + os.environ["RANK"])
step = 0
while True:
    if not os.path.exists(quiet):
        print("step %d loss 0.5" % step, flush=True)
    step += 1
    time.sleep(0.2)
`;

const jobYaml = () =>
  hyperpodrunJobYaml({
    ...ref,
    hyperpodrun: agent.hyperpodrun,
    work,
    replicas: 2,
    nproc: 2,
    flags: ["--tee=3"],
    runPolicy: `    logMonitoringConfiguration:
      - name: Steps
        logPattern: ".*step.*"
        expectedRecurringFrequencyInSeconds: 2
`,
  });

beforeAll(async () => {
  agent = await ensureHyperPodAgent();
  work = await hyperpodWorkDir("rebound-hyperpodrun-ranks-", WORKER_PY);
  ctl = work.ctl;
  database = await createSeededTestDatabase("it_hyperpodrun_ranks");
  operator = await startLocalOperator({
    databaseUrl: database.url,
    nodes: 2,
    gpusPerNode: 2,
    config: { stopTimeoutSeconds: 5 },
  });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await operator?.stop();
  await database?.drop();
  if (work) await rm(work.dir, { recursive: true, force: true });
}, 60_000);

/** The pid the worker of global rank `rank` wrote in restart `restart`; null until it has. */
const workerPid = (rank: number, restart: number) =>
  readFile(path.join(ctl, `pid-${rank}-${restart}`), "utf8").then(Number, () => null);

/** The job's restart record number `count` (oldest first), once it is no longer pending. */
function completedRecord(count: number) {
  return operator
    .waitFor(
      `restart record #${count}, complete`,
      async () => {
        const rows = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
        const row = rows[count - 1];
        return row && row.outcome !== "pending" ? row : null;
      },
      120_000,
    )
    .catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await diagnosis()}`);
    });
}

async function diagnosis(): Promise<string> {
  const events = await operator.backend.listEvents(ref);
  const status = (await operator.backend.getJob(ref))?.status;
  return [JSON.stringify(status), JSON.stringify(operator.live(ref)?.pods), JSON.stringify(events)].join(
    "\n",
  );
}

describe("the real hyperpodrun's crash is recorded as the rank that crashed", () => {
  it(
    "runs 2 pods × 2 ranks, each worker with its global rank",
    async () => {
      await operator.submit(jobYaml());
      await operator
        .waitFor(
          "both agents running and 4 workers up",
          async () => {
            const job = operator.live(ref);
            const running = job?.pods.filter((pod) => pod.agentState === "running") ?? [];
            const pids = await Promise.all([0, 1, 2, 3].map((rank) => workerPid(rank, 0)));
            return job?.phase === "Running" && running.length === 2 && pids.every(Boolean) ? job : null;
          },
          180_000,
        )
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\n${await diagnosis()}`);
        });
    },
    INSTALL_TIMEOUT_MS,
  );

  it("kill -9 of local rank 1 in group rank 1: the agent names local rank 1, the record rank 3 alone", async () => {
    const pod = operator.live(ref)?.pods.find((candidate) => candidate.groupRank === 1);
    const pid = await workerPid(3, 0);
    if (!pod || !pid) throw new Error("no pod at group rank 1, or its local rank 1 wrote no pid");
    process.kill(pid, "SIGKILL");
    const event = await completedRecord(1);
    expect(event).toMatchObject({ faultReason: "WorkerCrash", action: "PLR", outcome: "recovered" });
    expect(event.pods).toEqual([pod.name]);
    expect(event.ranks).toEqual([3]);
    // The Warning event keeps the agent's own words: local rank 1, by SIGKILL, and no other.
    const warning = (await operator.backend.listEvents(ref)).find((each) => each.reason === "WorkerCrash");
    expect(warning?.message).toMatch(/^\s+Local Rank 1 exited with code -9 due to: Signal 9 \(SIGKILL\)/m);
    expect(warning?.message).not.toMatch(/Local Rank 0/);
    const [entry] = timelineEntries([event]);
    if (!entry) throw new Error("no timeline entry");
    expect(faultScope(entry)).toBe(`rank 3 on ${pod.node} (pod ${pod.name})`);
    // Every rank is back: the workers of restart 1 wrote their pids.
    await operator.waitFor(
      "4 workers of restart 1",
      async () => (await Promise.all([0, 1, 2, 3].map((rank) => workerPid(rank, 1)))).every(Boolean),
      60_000,
    );
  }, 200_000);

  it("a log rule's hang names no rank: the record says the pod, not ranks that did not fail", async () => {
    const pod = operator.live(ref)?.pods.find((candidate) => candidate.groupRank === 1);
    if (!pod) throw new Error("no pod at group rank 1");
    // Local rank 0 of that pod (global rank 2), the one rank hyperpodrun 1.1.3 watches, goes quiet.
    await writeFile(path.join(ctl, "quiet-2"), "", { mode: 0o666 });
    const hang = await operator.waitFor(
      "the hang's record",
      async () => {
        const rows = await listRestartEvents(operator.db, { namespace: ref.namespace, jobName: ref.name });
        return rows[1] ?? null;
      },
      60_000,
    );
    await rm(path.join(ctl, "quiet-2"));
    const event = await completedRecord(2);
    expect(event.id).toBe(hang.id);
    expect(event).toMatchObject({ faultReason: "LogHang_Steps", outcome: "recovered" });
    expect(event.pods).toEqual([pod.name]);
    expect(event.ranks).toEqual([]);
    const [entry] = timelineEntries([event]);
    if (!entry) throw new Error("no timeline entry");
    expect(faultScope(entry)).toBe(`pod ${pod.name} on ${pod.node}`);
  }, 120_000);
});
