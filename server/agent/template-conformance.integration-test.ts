import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POLICY_TEMPLATES } from "@/server/domain/policy/templates";
import { type AgentStatus, createAgentClient } from "@/server/operator/agent-client";
import { ensureHyperPodAgent, HYPERPOD_AGENT_VERSION, type HyperPodAgent } from "@/test/hyperpod-agent";
import { cleanupAgents, startAgent } from "./testing/agent-harness";
import { checkResourceConfigDir, killHyperPodRuns, startHyperPodRun } from "./testing/hyperpodrun";
import {
  type SampleKind,
  TEMPLATE_WORKER_PY,
  type TemplateCase,
  templateCases,
} from "./testing/template-cases";

/**
 * Every shipped policy template (server/domain/policy/templates.ts, read as it is now) run through AWS's
 * unchanged hyperpod-elastic-agent and through ours, side by side: each agent gets the template's rules in
 * /start (as the operator sends them) and a worker that prints the template's sample lines. On its `fires`
 * lines both agents must fault with the same reason and message; on its `quiet` lines neither may fault
 * up to its last line (plus SETTLE_MS for hyperpodrun's 1 s read loop). Windows (hang, start cut-off) are
 * shortened and the lines played faster by the same factor (testing/template-cases.ts). Agents start a
 * batch at a time (hyperpodrun imports torch: about 0.5 GB and a few CPU seconds each), then the batch's
 * lines play at once; the table of what each agent reported is printed for the record.
 */

const INSTALL_TIMEOUT_MS = 20 * 60_000;
const RUN_TIMEOUT_MS = 6 * 60_000;
/** Cases (each one hyperpodrun and one of ours) started together. */
const MAX_PARALLEL = 10;
/** After the worker's last line: hyperpodrun reads a new line within 1 s, then its monitor loop reports it. */
const SETTLE_MS = 1500;
/** How long after /start the agent may take to start the worker (hyperpodrun imports torch first). */
const WORKER_START_MS = 60_000;
const POLL_MS = 100;

type Seen = { state: string; reason: string | null; message: string | null; atMs: number | null };
type Side = { url: string; done: string };
type Outcome = { run: TemplateCase; ours: Seen; hyperpod: Seen };

const CASES = POLICY_TEMPLATES.flatMap(templateCases);
const client = createAgentClient({ timeoutMs: 5000 });
const outcomes = new Map<string, Outcome>();
const keyOf = (template: string, kind: SampleKind) => `${template}/${kind}`;
let agent: HyperPodAgent;
let dir = "";
let worker = "";

async function prepare(run: TemplateCase, side: "ours" | "hyperpod") {
  // Short: hyperpodrun binds a unix socket under it (TMPDIR), and such a path holds at most 107 bytes.
  const sideDir = path.join(dir, `${CASES.indexOf(run)}-${side}`);
  await mkdir(sideDir, { recursive: true });
  const schedule = path.join(sideDir, "schedule.json");
  await writeFile(schedule, JSON.stringify(run.schedule));
  return { sideDir, args: [schedule, path.join(sideDir, "done")] };
}

async function launch(run: TemplateCase): Promise<{ run: TemplateCase; ours: Side; hyperpod: Side }> {
  const [mine, theirs] = await Promise.all([prepare(run, "ours"), prepare(run, "hyperpod")]);
  const [ours, hyperpod] = await Promise.all([
    startAgent({
      args: [
        "--server-port=0",
        "--server-host=127.0.0.1",
        "--nproc-per-node=1",
        `--log-dir=${path.join(mine.sideDir, "logs")}`,
        worker,
        ...mine.args,
      ],
      env: { TMPDIR: mine.sideDir },
    }),
    startHyperPodRun({ agent, dir: theirs.sideDir, script: worker, args: theirs.args }),
  ]);
  return {
    run,
    ours: { url: `http://127.0.0.1:${ours.port}`, done: mine.args[1] ?? "" },
    hyperpod: { url: hyperpod.url, done: theirs.args[1] ?? "" },
  };
}

const seen = (status: AgentStatus, atMs: number | null): Seen => ({
  state: status.status,
  reason: status.reason ?? null,
  message: status.message ?? null,
  atMs,
});

const failed = (what: string): Seen => ({ state: `error: ${what}`, reason: null, message: null, atMs: null });

type Watch = {
  run: TemplateCase;
  startedAt: number;
  /** Until the worker has started: /start plus WORKER_START_MS; then its start plus the case's wait. */
  deadline: number;
  workerStarted: boolean;
  quietEndsAt: number;
};

/** The case's outcome from one /status answer, or null to keep polling. */
function verdict(status: AgentStatus, watch: Watch, now: number): Seen | null {
  if (status.status === "faulted") return seen(status, now - watch.startedAt);
  if (now >= watch.quietEndsAt) return seen(status, null);
  if (now < watch.deadline) return null;
  if (!watch.workerStarted) return failed(`the worker did not start within ${WORKER_START_MS} ms`);
  return watch.run.kind === "quiet" ? failed("the worker did not print all its lines") : seen(status, null);
}

/** Moves the deadlines as the worker's files appear: its start, and (quiet lines) its last line. */
function noticeWorker(watch: Watch, side: Side, now: number): void {
  if (!watch.workerStarted && existsSync(`${side.done}.started`)) {
    watch.workerStarted = true;
    watch.deadline = now + watch.run.waitMs;
  }
  if (watch.run.kind === "quiet" && watch.quietEndsAt === Number.POSITIVE_INFINITY && existsSync(side.done))
    watch.quietEndsAt = now + SETTLE_MS;
}

/**
 * Polls /status until a fault, the quiet lines' end (+ SETTLE_MS), or the case's wait runs out. The wait
 * counts from the worker's start (its `.started` file), not from /start: hyperpodrun on a loaded machine
 * can take seconds to start it. Quiet lines that were never all printed (the worker did not run) are an
 * error, not a pass.
 */
async function observe(side: Side, run: TemplateCase, startedAt: number): Promise<Seen> {
  const watch: Watch = {
    run,
    startedAt,
    deadline: startedAt + WORKER_START_MS,
    workerStarted: false,
    quietEndsAt: Number.POSITIVE_INFINITY,
  };
  for (;;) {
    const reply = await client.status(side.url);
    if (!reply.ok) return failed(`/status ${reply.error.detail}`);
    const now = Date.now();
    noticeWorker(watch, side, now);
    const result = verdict(reply.value, watch, now);
    if (result) return result;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function play(side: Side, run: TemplateCase): Promise<Seen> {
  const startedAt = Date.now();
  const started = await client.start(side.url, {
    rank: 0,
    nnodes: 1,
    faultCount: 0,
    master_addr: "127.0.0.1",
    master_port: 29500,
    log_monitoring_configuration: run.rules,
  });
  if (!started.ok) return failed(`/start ${started.error.detail}`);
  return observe(side, run, startedAt);
}

async function runBatch(batch: readonly TemplateCase[]): Promise<void> {
  const launched = await Promise.all(batch.map(launch));
  await Promise.all(
    launched.map(async ({ run, ours, hyperpod }) => {
      const [mine, theirs] = await Promise.all([play(ours, run), play(hyperpod, run)]);
      outcomes.set(keyOf(run.template, run.kind), { run, ours: mine, hyperpod: theirs });
    }),
  );
  await cleanupAgents();
  await killHyperPodRuns();
}

const shown = (s: Seen) =>
  s.state === "faulted" ? `${s.reason} ${((s.atMs ?? 0) / 1000).toFixed(1)} s` : s.state;

function printTable(): void {
  const rows = CASES.flatMap((run) => {
    const found = outcomes.get(keyOf(run.template, run.kind));
    if (!found) return [];
    const { ours, hyperpod } = found;
    const same = ours.reason === hyperpod.reason && ours.message === hyperpod.message;
    const row = [run.template, run.kind, shown(ours), shown(hyperpod), same ? "same" : "DIFFERS"];
    return [[...row, run.scaled ?? ""]];
  });
  const table = [
    ["template", "lines", "ours", `hyperpodrun ${HYPERPOD_AGENT_VERSION}`, "reason+message", "windows"],
    ...rows,
  ];
  const widths =
    table[0]?.map((_, column) => Math.max(...table.map((row) => row[column]?.length ?? 0))) ?? [];
  const text = table.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd(),
  );
  console.log(`policy templates: fault reported after /start (ours / hyperpodrun)\n${text.join("\n")}`);
}

beforeAll(async () => {
  checkResourceConfigDir();
  agent = await ensureHyperPodAgent();
  dir = await mkdtemp(path.join(tmpdir(), "rtc-"));
  worker = path.join(dir, "worker.py");
  await writeFile(worker, TEMPLATE_WORKER_PY);
}, INSTALL_TIMEOUT_MS);

beforeAll(async () => {
  for (let first = 0; first < CASES.length; first += MAX_PARALLEL)
    await runBatch(CASES.slice(first, first + MAX_PARALLEL));
  printTable();
}, RUN_TIMEOUT_MS);

afterAll(async () => {
  await cleanupAgents();
  await killHyperPodRuns();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function outcome(template: string, kind: SampleKind): Outcome {
  const found = outcomes.get(keyOf(template, kind));
  if (!found) throw new Error(`no outcome for ${keyOf(template, kind)}`);
  return found;
}

describe(`policy templates through hyperpod-elastic-agent ${HYPERPOD_AGENT_VERSION} and ours`, () => {
  for (const template of POLICY_TEMPLATES) {
    describe(template.id, () => {
      it("fires: both agents fault with the same reason and message, naming one of its rules", () => {
        const { run, ours, hyperpod } = outcome(template.id, "fires");
        const reasons = run.rules.flatMap((rule) =>
          ["LogFault_", "LogHang_", "LogSlow_"].map((prefix) => `${prefix}${rule.name}`),
        );
        expect(ours.state).toBe("faulted");
        expect(reasons).toContain(ours.reason);
        expect({ reason: hyperpod.reason, message: hyperpod.message }).toEqual({
          reason: ours.reason,
          message: ours.message,
        });
      });

      it("quiet: neither agent faults up to its last line", () => {
        const { ours, hyperpod } = outcome(template.id, "quiet");
        expect({ ours: shown(ours), hyperpod: shown(hyperpod) }).toEqual({
          ours: "running",
          hyperpod: "running",
        });
      });
    });
  }
});
