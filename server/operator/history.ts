import type {
  HistoryClusterSeries,
  HistoryJobSeries,
  HistoryResponse,
  LiveJob,
  LivePod,
  RestartType,
} from "@/server/domain/operator-api/contract";
import { alignWindow, chooseStepSeconds } from "@/server/metrics/step";
import { downsample, type Point, Ring, TieredSeries } from "./history-ring";

/**
 * The operator's embedded metrics history, for consoles without Prometheus: bounded, in memory, sampled
 * from the live state every reconcile already builds (live-state.ts calls `observe`), served by
 * GET /api/v1/jobs/:ns/:name/history and GET /api/v1/history (api/routes.ts), so a job's charts survive a
 * page reload on one machine. Lost when the operator restarts.
 *
 * Bounds (HISTORY_LIMITS): per job and gauge series (mean loss, total throughput, oldest rank's output
 * age, ranks running and total) one sample per 2 s for the last 30 min (900 points) and one mean per minute
 * for the last 24 h (1,440 points); the last 256 detections and 256 completed restarts per job; at most 64
 * jobs, the one updated longest ago dropped first. About 190 KB per job, 12 MB at most.
 *
 * Recoveries are read from the live state's transitions: a new `recovery` is a detection (latency
 * detectedAt − faultAt, as the fault detection histogram observes); its end with the job Running again is
 * a restart of its type (latency: end − detectedAt, within one reconcile of the restart latency histogram).
 * A job is its uid: a resubmitted name starts a new, empty history.
 */
export const HISTORY_LIMITS = {
  sampleMs: 2000,
  finePoints: 900,
  coarseMs: 60_000,
  coarsePoints: 1440,
  recoveries: 256,
  jobs: 64,
} as const;

type Limits = typeof HISTORY_LIMITS;
type Gauge = "loss" | "throughput" | "heartbeat_age" | "running" | "total";
const GAUGES: readonly Gauge[] = ["loss", "throughput", "heartbeat_age", "running", "total"];
const RESTART_TYPES: readonly RestartType[] = ["PLR", "POD_REPLACEMENT", "JLR"];

/** One finished restart: when, its type, its latency in seconds. */
type Restart = { t: number; type: RestartType; latency: number };

type JobHistory = {
  namespace: string;
  uid: string | undefined;
  gauges: Record<Gauge, TieredSeries>;
  detections: Ring;
  restarts: Restart[];
  recovery: LiveJob["recovery"];
  sampledAt: number;
};

const finite = (values: ReadonlyArray<unknown>) =>
  values.filter((value): value is number => typeof value === "number" && Number.isFinite(value));

/** One pod's part of its job's gauges (its finite losses and throughputs, its running ranks' oldest line). */
type PodGauges = {
  lossSum: number;
  losses: number;
  throughput: number;
  throughputs: number;
  oldestLine: number;
};

/**
 * Per pod: a kept pod's live view is the same object from one reconcile to the next (live-state.ts), so a
 * quiet job's sample adds up its pods' parts instead of reading and parsing every rank again.
 */
const podGauges = new WeakMap<LivePod, PodGauges>();

function gaugesOfPod(pod: LivePod): PodGauges {
  const known = podGauges.get(pod);
  if (known) return known;
  const losses = finite(pod.ranks.map((rank) => rank.loss));
  const throughputs = finite(pod.ranks.map((rank) => rank.throughput));
  const lines = finite(
    pod.ranks
      .filter((rank) => rank.state === "running" && rank.last_line_at !== null)
      .map((rank) => Date.parse(rank.last_line_at ?? "")),
  );
  const gauges = {
    lossSum: losses.reduce((a, b) => a + b, 0),
    losses: losses.length,
    throughput: throughputs.reduce((a, b) => a + b, 0),
    throughputs: throughputs.length,
    oldestLine: Math.min(Number.POSITIVE_INFINITY, ...lines),
  };
  podGauges.set(pod, gauges);
  return gauges;
}

/** The job's gauges now: mean loss and total throughput of its ranks, the oldest running rank's output age. */
export function gaugesOf(job: LiveJob, now: number): Record<Gauge, number | null> {
  const sum = { lossSum: 0, losses: 0, throughput: 0, throughputs: 0, oldestLine: Number.POSITIVE_INFINITY };
  for (const pod of job.pods) {
    const part = gaugesOfPod(pod);
    sum.lossSum += part.lossSum;
    sum.losses += part.losses;
    sum.throughput += part.throughput;
    sum.throughputs += part.throughputs;
    sum.oldestLine = Math.min(sum.oldestLine, part.oldestLine);
  }
  return {
    loss: sum.losses > 0 ? sum.lossSum / sum.losses : null,
    throughput: sum.throughputs > 0 ? sum.throughput : null,
    heartbeat_age: Number.isFinite(sum.oldestLine) ? Math.max(0, (now - sum.oldestLine) / 1000) : null,
    running: job.ranksRunning,
    total: job.ranksTotal,
  };
}

function newJobHistory(job: LiveJob, limits: Limits): JobHistory {
  const series = () => new TieredSeries(limits);
  return {
    namespace: job.namespace,
    uid: job.uid,
    gauges: {
      loss: series(),
      throughput: series(),
      heartbeat_age: series(),
      running: series(),
      total: series(),
    },
    detections: new Ring(limits.recoveries),
    restarts: [],
    recovery: null,
    sampledAt: Number.NEGATIVE_INFINITY,
  };
}

function observeRecovery(history: JobHistory, job: LiveJob, now: number, limits: Limits): void {
  const before = history.recovery;
  const after = job.recovery;
  if (after && (!before || before.detectedAt !== after.detectedAt))
    history.detections.push(after.detectedAt, Math.max(0, after.detectedAt - after.faultAt) / 1000);
  if (before && !after && job.phase === "Running") {
    history.restarts.push({
      t: now,
      type: before.action,
      latency: Math.max(0, now - before.detectedAt) / 1000,
    });
    if (history.restarts.length > limits.recoveries) history.restarts.shift();
  }
  history.recovery = after;
}

type Window = { start: number; end: number; stepSeconds: number };
type Series = HistoryResponse["series"];

/**
 * Cumulative restarts of each type over the window: the count before it, each restart in it, the count at
 * its end (counted over the restarts kept: the last HISTORY_LIMITS.recoveries of each job).
 */
function restartSeries(histories: readonly JobHistory[], window: Window): Series {
  const events = histories.flatMap((history) => history.restarts).sort((a, b) => a.t - b.t);
  return RESTART_TYPES.flatMap((type) => {
    const ofType = events.filter((event) => event.type === type);
    if (ofType.length === 0) return [];
    const before = ofType.filter((event) => event.t < window.start).length;
    const inWindow = ofType.filter((event) => event.t >= window.start && event.t <= window.end);
    const points: Point[] = [{ t: window.start, value: before }];
    inWindow.forEach((event, index) => {
      points.push({ t: event.t, value: before + index + 1 });
    });
    points.push({ t: window.end, value: before + inWindow.length });
    return [{ name: type, points }];
  });
}

function latencySeries(
  histories: readonly JobHistory[],
  series: "detection_latency" | "restart_latency",
  window: Window,
): Series {
  const from = window.start - window.stepSeconds * 1000;
  const points =
    series === "detection_latency"
      ? histories.flatMap((history) => history.detections.between(from, window.end))
      : histories.flatMap((history) =>
          history.restarts
            .filter((r) => r.t >= from && r.t <= window.end)
            .map((r) => ({ t: r.t, value: r.latency })),
        );
  return [
    { name: series === "detection_latency" ? "detection" : "restart", points: downsample(points, window) },
  ];
}

const gaugePoints = (history: JobHistory, gauge: Gauge, window: Window) =>
  downsample(history.gauges[gauge].between(window.start - window.stepSeconds * 1000, window.end), window);

/** Sums each step's value over the jobs (a job without data at a step adds nothing there). */
function sumOver(histories: readonly JobHistory[], gauge: Gauge, window: Window): Point[] {
  const sums = new Map<number, number>();
  for (const history of histories)
    for (const point of gaugePoints(history, gauge, window))
      sums.set(point.t, (sums.get(point.t) ?? 0) + point.value);
  return [...sums.entries()].sort(([a], [b]) => a - b).map(([t, value]) => ({ t, value }));
}

const JOB_GAUGE_NAMES = { loss: "job mean", throughput: "job total", heartbeat_age: "oldest rank" } as const;

function windowOf(range: { start: number; end: number }): Window {
  const stepSeconds = chooseStepSeconds(range.end - range.start);
  return { ...alignWindow(range, stepSeconds), stepSeconds };
}

function sample(history: JobHistory, job: LiveJob, now: number): void {
  history.sampledAt = now;
  const values = gaugesOf(job, now);
  for (const gauge of GAUGES) {
    const value = values[gauge];
    if (value !== null) history.gauges[gauge].push(now, value);
  }
}

export function createHistory(limits: Limits = HISTORY_LIMITS) {
  const jobs = new Map<string, JobHistory>();
  /** The job's history (a new one for a new run of the name), moved to the newest end; the oldest dropped. */
  const kept = (job: LiveJob): JobHistory => {
    const key = `${job.namespace}/${job.name}`;
    const found = jobs.get(key);
    const history = found && found.uid === job.uid ? found : newJobHistory(job, limits);
    jobs.delete(key);
    jobs.set(key, history);
    if (jobs.size > limits.jobs) jobs.delete(jobs.keys().next().value ?? "");
    return history;
  };
  return {
    /** Called with every fresh live state of a job; samples its gauges at most every `sampleMs`. */
    observe(job: LiveJob, now: number): void {
      const history = kept(job);
      observeRecovery(history, job, now, limits);
      if (now - history.sampledAt >= limits.sampleMs) sample(history, job, now);
    },

    /** One job's series over the window (null: no history of this job). */
    job(
      ref: { namespace: string; name: string },
      series: HistoryJobSeries,
      range: { start: number; end: number },
    ): HistoryResponse | null {
      const history = jobs.get(`${ref.namespace}/${ref.name}`);
      if (!history) return null;
      const window = windowOf(range);
      const answer = (result: Series) => ({ stepSeconds: window.stepSeconds, series: result });
      switch (series) {
        case "loss":
        case "throughput":
        case "heartbeat_age":
          return answer([{ name: JOB_GAUGE_NAMES[series], points: gaugePoints(history, series, window) }]);
        case "ranks":
          return answer([
            { name: "running", points: gaugePoints(history, "running", window) },
            { name: "total", points: gaugePoints(history, "total", window) },
          ]);
        case "restarts":
          return answer(restartSeries([history], window));
        default:
          return answer(latencySeries([history], series, window));
      }
    },

    /** A series over every kept job of the namespaces given ("all": every job). */
    cluster(
      series: HistoryClusterSeries,
      range: { start: number; end: number },
      namespaces: ReadonlySet<string> | "all",
    ): HistoryResponse {
      const window = windowOf(range);
      const histories = [...jobs.values()].filter((h) => namespaces === "all" || namespaces.has(h.namespace));
      const answer = (result: Series) => ({ stepSeconds: window.stepSeconds, series: result });
      switch (series) {
        case "throughput":
          return answer([{ name: "cluster total", points: sumOver(histories, "throughput", window) }]);
        case "restarts":
          return answer(restartSeries(histories, window));
        default:
          return answer(latencySeries(histories, series, window));
      }
    },

    /** Jobs kept now (for tests and the operator's own metrics). */
    size: () => jobs.size,
  };
}

export type OperatorHistory = ReturnType<typeof createHistory>;
