import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JobCharts } from "@/server/metrics/charts";
import type { MetricsResult } from "@/server/metrics/series";
import { type ConsoleStack, startConsoleStack } from "@/server/operator/testing/console-stack";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import type { LiveMessage } from "@/server/services/live/hub";

/**
 * metrics.job on a real stack (no PROMETHEUS_URL in tests: the operator's embedded history, read through the
 * console's gateway over the operator's HTTP API): a reader of the job gets every series' result, pushed;
 * another team's engineer is refused as for a job that does not exist.
 */
let stack: ConsoleStack;
const llm = { namespace: "hyperpod-ns-llm-research", name: "it-metrics-router" };

beforeAll(async () => {
  stack = await startConsoleStack({ prefix: "it_metrics_router", nodes: 1, gpusPerNode: 2 });
  await stack.operator.submit(demoJobYaml({ name: llm.name, nodes: 1, ranks: 2, gpusPerPod: 2 }));
  await stack.operator.waitFor("ranks running", () => stack.operator.live(llm)?.ranksRunning === 2, 60_000);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const chartsOf = (message: LiveMessage<JobCharts, JobCharts>): JobCharts | null => {
  if (message.kind === "snapshot") return message.value;
  return message.kind === "patch" ? message.patch : null;
};
const pointsOf = (result: MetricsResult | undefined) =>
  result?.status === "ok" ? (result.series[0]?.points.length ?? 0) : 0;

const input = {
  job: llm,
  series: ["throughput", "ranks", "restarts"] as const,
  windowMs: 60_000,
  rank: null,
};

describe("metrics.job", () => {
  it("pushes each series' result from the operator's embedded history to a reader of the job", async () => {
    const { caller } = await stack.callerFor("engineer@rebound.local");
    const stream = (await caller.metrics.job({ ...input, series: [...input.series] }))[
      Symbol.asyncIterator
    ]();
    const charts = await stack.operator.waitFor(
      "a snapshot with throughput points",
      async () => {
        const charts = chartsOf(
          ((await stream.next()) as { value: LiveMessage<JobCharts, JobCharts> }).value,
        );
        return pointsOf(charts?.throughput) > 0 ? charts : null;
      },
      60_000,
    );
    await stream.return?.(undefined);
    expect(charts.throughput).toMatchObject({ status: "ok", source: "embedded" });
    expect(charts.ranks?.status === "ok" && charts.ranks.series.map((series) => series.name)).toEqual([
      "running",
      "total",
    ]);
  }, 90_000);

  it("refuses another team's engineer as NOT_FOUND before anything is read", async () => {
    const { caller } = await stack.callerFor("vision@rebound.local");
    const stream = (await caller.metrics.job({ ...input, series: ["loss"] }))[Symbol.asyncIterator]();
    const refused = await stream.next().then(
      () => "allowed",
      (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
    );
    expect(refused).toBe("NOT_FOUND");
  });

  it("refuses a window or series list out of bounds", async () => {
    const { caller } = await stack.callerFor("engineer@rebound.local");
    await expect(caller.metrics.job({ ...input, series: [], windowMs: 60_000 })).rejects.toThrow();
    await expect(caller.metrics.job({ ...input, series: ["loss"], windowMs: 1000 })).rejects.toThrow();
  });
});
