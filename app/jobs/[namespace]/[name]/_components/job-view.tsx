"use client";

import Link from "next/link";
import { type ReactNode, useState } from "react";
import { RestartTimeline } from "@/components/charts/restart-timeline";
import { formatDuration } from "@/components/jobs/format";
import { RankTable } from "@/components/jobs/rank-table";
import { RankTopology } from "@/components/jobs/rank-topology";
import { PastRuns } from "@/components/jobs/runs/past-runs";
import { ScalingHistory } from "@/components/jobs/scaling-history";
import { useNow } from "@/components/jobs/use-now";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import type { JobPage } from "@/server/domain/jobs/pages";
import { JobActions } from "./job-actions";
import { JobCharts } from "./job-charts";
import { RankPanel } from "./rank-panel";
import { type ConnectionState, useLiveJob } from "./use-live-job";
import { WhyPendingPanel } from "./why-pending-panel";

const LIVE_LABEL: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting… (showing the last data received)",
};

function JobHeader(props: { page: JobPage; now: number; state: ConnectionState; actions: ReactNode }) {
  const { page, now, state } = props;
  const healthy = page.topology.ranks.filter((rank) => rank.health === "healthy").length;
  return (
    <div className="page-header">
      <div>
        <h1>{page.name}</h1>
        <ul className="facts" aria-label="Job facts">
          <li>
            Status{" "}
            <strong data-testid="job-status">
              {/* Waiting for admission (task governance): Pending, whatever the operator's status says. */}
              {page.phase === "Pending" ? "Pending" : page.status}
            </strong>
          </li>
          <li>
            Team <strong>{page.team ?? "—"}</strong>
          </li>
          <li>
            Priority <strong>{page.priorityClass ?? "—"}</strong>
          </li>
          <li>
            GPUs <strong>{page.gpus}</strong>
          </li>
          <li>
            Ranks healthy{" "}
            <strong data-testid="ranks-healthy">
              {healthy}/{page.topology.ranks.length}
            </strong>
          </li>
          <li>
            Age <strong>{formatDuration(now - page.createdAt)}</strong>
          </li>
          <li>
            Policy{" "}
            <strong data-testid="job-policy">
              {page.appliedPolicy
                ? `${page.appliedPolicy.name} v${page.appliedPolicy.version}`
                : "its own runPolicy"}
            </strong>
            {page.shadow?.policy
              ? ` (shadow: ${page.shadow.policy.name} v${page.shadow.policy.version})`
              : ""}
          </li>
          {page.recovering ? (
            <li>
              Recovering <strong>{page.recovering}</strong>
            </li>
          ) : null}
        </ul>
      </div>
      <div className="stack">
        <span className="live-status" role="status" data-state={state}>
          {LIVE_LABEL[state]}
        </span>
        <Link className="button button-secondary" href={`/jobs/${page.namespace}/${page.name}/policy`}>
          Policy
        </Link>
        {props.actions}
      </div>
    </div>
  );
}

/** Faults and recoveries (each naming the policy it ran under), a shadow's verdicts, rules awaiting a restart. */
function JobTimeline({ page, now }: { page: JobPage; now: number }) {
  return (
    <section className="card" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Restart timeline</h2>
      {page.pendingRestart ? (
        <p role="status" className="muted">
          New rules take effect at the next restart: the running agents keep the rules they started with.
        </p>
      ) : null}
      <RestartTimeline entries={page.timeline} totals={page.totals} now={now} shadow={page.verdicts} />
    </section>
  );
}

export function JobView(props: { namespace: string; name: string }) {
  const ref = { namespace: props.namespace, name: props.name };
  const { page, access, state, streamError } = useLiveJob(ref);
  const [selected, setSelected] = useState<number | null>(null);
  const now = useNow();

  if (!page) {
    if (streamError)
      return <ErrorState title={`Could not load ${props.name}`} message={streamError.message} />;
    return <LoadingState label={props.name} />;
  }
  const canAct = access.data?.canAct ?? false;
  const mode = access.data?.mode ?? "local";
  const selectedRank =
    selected === null ? null : (page.topology.ranks.find((rank) => rank.rank === selected) ?? null);
  return (
    <div className="stack">
      <JobHeader
        page={page}
        now={now}
        state={state}
        actions={canAct ? <JobActions job={ref} suspended={page.status === "Suspended"} /> : null}
      />

      <WhyPendingPanel page={page} />

      <section className="card" aria-labelledby="topology-heading">
        <h2 id="topology-heading">Topology</h2>
        {page.topology.note ? (
          <p className="muted">Ranks: {page.topology.note}; shown from the pod and agent state.</p>
        ) : null}
        <RankTopology
          topology={page.topology}
          now={now}
          selectedRank={selected}
          onSelectRank={setSelected}
          describedBy="rank-table-caption"
        />
      </section>

      {selectedRank ? (
        <RankPanel job={ref} rank={selectedRank} canAct={canAct} canInject={mode === "local"} />
      ) : null}

      <section className="card" aria-labelledby="ranks-heading">
        <h2 id="ranks-heading">Ranks</h2>
        <RankTable
          ranks={page.topology.ranks}
          now={now}
          selectedRank={selected}
          onSelectRank={setSelected}
          captionId="rank-table-caption"
        />
      </section>

      <JobTimeline page={page} now={now} />
      <ScalingHistory
        events={page.events}
        elastic={page.elastic}
        rows={page.scaling}
        createdAt={page.createdAt}
        now={now}
      />

      <JobCharts job={ref} selected={selected} />

      <section className="card" aria-labelledby="past-runs-heading">
        <h2 id="past-runs-heading">Past runs</h2>
        <PastRuns namespace={page.namespace} name={page.name} />
      </section>

      <section className="card" aria-labelledby="events-heading">
        <h2 id="events-heading">Events</h2>
        <ol className="muted">
          {page.events
            .slice()
            .reverse()
            .slice(0, 20)
            .map((event) => (
              <li key={`${event.at}-${event.reason}-${event.message}`}>
                <strong className={event.type === "Warning" ? "badge badge-warn" : "badge"}>
                  {event.reason}
                </strong>{" "}
                {event.message}
              </li>
            ))}
        </ol>
      </section>
    </div>
  );
}
