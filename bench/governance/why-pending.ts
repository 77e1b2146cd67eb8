import { parseJobKey } from "@/server/cluster/types";
import type { Db } from "@/server/db/client";
import type { Workload } from "@/server/domain/governance/types";
import { snapshotOf, teamNamespaces } from "@/server/services/governance/snapshot";
import { fromOperator, whyPendingView } from "@/server/services/governance/what-if";
import { loadGovernanceConfig } from "@/server/store/governance/config";
import type { OperatorApi } from "./api";
import { percentile } from "./stats";

export type WhyPendingFigures = {
  why_pending_p50_ms: number;
  why_pending_p99_ms: number;
  why_pending_with_snapshot_p99_ms: number;
  console_why_pending_p50_ms: number;
  console_why_pending_p99_ms: number;
  pending_seen: number;
};

/** The console's snapshot: Postgres's configuration and the operator's live jobs and nodes. */
async function snapshot(db: Db, api: OperatorApi) {
  const [config, teamOfNamespace, nodes, jobs] = await Promise.all([
    loadGovernanceConfig(db),
    teamNamespaces(db),
    api.nodes(),
    api.jobs(),
  ]);
  return snapshotOf({ config, nodes, jobs, teamOfNamespace, now: Date.now() });
}

/**
 * "Why is my job pending" as the console answers it now (askWhyPending in server/services/governance): the
 * operator answers from its admission over its API, the answer parsed with the API contract and shaped for
 * the page (fromOperator). The console's gateway module needs Next's server-only guard, so the benchmark
 * makes the same HTTP call itself (api.ts). Timed over `samples` pending jobs spread over the queue.
 */
async function throughConsole(api: OperatorApi, pending: readonly Workload[], samples: number) {
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const workload = pending[Math.floor((i * pending.length) / samples)] ?? pending[0];
    if (!workload) continue;
    const started = performance.now();
    const view = fromOperator(await api.whyPending(parseJobKey(workload.key)), workload.key, workload.team);
    times.push(performance.now() - started);
    if (!view) throw new Error(`no answer for ${workload.key} from the operator`);
  }
  return {
    console_why_pending_p50_ms: percentile(times, 50),
    console_why_pending_p99_ms: percentile(times, 99),
  };
}

/**
 * "Why is my job pending": the domain's whyPending over the console's snapshot of every live job, timed
 * alone over `samples` pending jobs spread over the queue, and end to end (fetch, snapshot, answer)
 * `fetches` times (what the console did before the operator answered it); then as the console answers it now
 * (throughConsole).
 */
export async function measureWhyPending(opts: {
  db: Db;
  api: OperatorApi;
  samples: number;
  fetches: number;
}): Promise<WhyPendingFigures> {
  const built = await snapshot(opts.db, opts.api);
  const pending = built.snapshot.pending;
  if (pending.length === 0) throw new Error("no pending job to ask about");
  const answer: number[] = [];
  for (let i = 0; i < opts.samples; i += 1) {
    const workload = pending[Math.floor((i * pending.length) / opts.samples)] ?? pending[0];
    if (!workload) continue;
    const started = performance.now();
    const view = whyPendingView(built.snapshot, workload.key, workload.team);
    answer.push(performance.now() - started);
    if (!view) throw new Error(`no answer for ${workload.key}`);
  }
  const withSnapshot: number[] = [];
  for (let i = 0; i < opts.fetches; i += 1) {
    const started = performance.now();
    const fresh = await snapshot(opts.db, opts.api);
    const last = fresh.snapshot.pending.at(-1);
    if (last) whyPendingView(fresh.snapshot, last.key, last.team);
    withSnapshot.push(performance.now() - started);
  }
  const asked = await throughConsole(opts.api, pending, opts.samples);
  return {
    why_pending_p50_ms: percentile(answer, 50),
    why_pending_p99_ms: percentile(answer, 99),
    why_pending_with_snapshot_p99_ms: percentile(withSnapshot, 99),
    ...asked,
    pending_seen: pending.length,
  };
}
