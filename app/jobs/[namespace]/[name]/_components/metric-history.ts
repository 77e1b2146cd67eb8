"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { RankView } from "@/server/domain/jobs/view-model";

/**
 * Loss and throughput over time, sampled every 5 s from the live page (the charts redraw no more often,
 * which keeps 1 Hz updates light): the job's mean loss
 * and total throughput, plus the selected rank's. Kept for the last 10 minutes in this tab (the operator's
 * agents also export these per rank on /metrics for Prometheus, for longer history).
 */
export type Point = { t: number; value: number };
export type MetricSeries = { name: string; points: Point[] };

const WINDOW_MS = 10 * 60 * 1000;
const SAMPLE_MS = 5000;

const finite = (values: Array<number | null>) =>
  values.filter((value): value is number => value !== null && Number.isFinite(value));

function sample(ranks: readonly RankView[], selected: number | null) {
  const losses = finite(ranks.map((rank) => rank.loss));
  const throughputs = finite(ranks.map((rank) => rank.throughput));
  const chosen = selected === null ? undefined : ranks.find((rank) => rank.rank === selected);
  return {
    loss: losses.length > 0 ? losses.reduce((a, b) => a + b, 0) / losses.length : null,
    throughput: throughputs.length > 0 ? throughputs.reduce((a, b) => a + b, 0) : null,
    rankLoss: chosen?.loss ?? null,
    rankThroughput: chosen?.throughput ?? null,
  };
}

type History = {
  t: number;
  loss: number | null;
  throughput: number | null;
  rankLoss: number | null;
  rankThroughput: number | null;
}[];

const series = (
  history: History,
  name: string,
  pick: (entry: History[number]) => number | null,
): MetricSeries => ({
  name,
  points: history.flatMap((entry) => {
    const value = pick(entry);
    return value !== null && Number.isFinite(value) ? [{ t: entry.t, value }] : [];
  }),
});

function useMetricHistory(ranks: readonly RankView[] | undefined, selected: number | null) {
  const [history, setHistory] = useState<History>([]);
  const last = useRef(0);
  useEffect(() => {
    const now = Date.now();
    if (!ranks || now - last.current < SAMPLE_MS) return;
    last.current = now;
    setHistory((current) => [
      ...current.filter((entry) => now - entry.t < WINDOW_MS),
      { t: now, ...sample(ranks, selected) },
    ]);
  }, [ranks, selected]);
  const rankName = selected === null ? null : `rank ${selected}`;
  return {
    loss: [
      series(history, "job mean", (e) => e.loss),
      ...(rankName ? [series(history, rankName, (e) => e.rankLoss)] : []),
    ],
    throughput: [
      series(history, "job total", (e) => e.throughput),
      ...(rankName ? [series(history, rankName, (e) => e.rankThroughput)] : []),
    ],
  };
}

/**
 * The page's loss and throughput charts: from Prometheus when the console has one (longer history, and
 * it survives a reload), else sampled in this tab from the live stream.
 */
export function useJobMetrics(input: {
  job: { namespace: string; name: string };
  ranks: readonly RankView[] | undefined;
  selected: number | null;
  source: "prometheus" | "live" | undefined;
}) {
  const trpc = useTRPC();
  const live = useMetricHistory(input.ranks, input.selected);
  const prometheus = useQuery({
    ...trpc.jobs.metrics.queryOptions({ job: input.job, rank: input.selected }),
    enabled: input.source === "prometheus",
    refetchInterval: 5000,
  });
  return prometheus.data ?? live;
}
