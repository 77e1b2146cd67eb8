"use client";

import { memo, type ReactNode, useDeferredValue, useMemo, useState } from "react";
import { JobStatus } from "@/app/jobs/_components/job-status";
import { RestartTimeline } from "@/components/charts/restart-timeline";
import { formatDuration } from "@/components/jobs/format";
import { RankTable } from "@/components/jobs/rank-table";
import { RankTopology } from "@/components/jobs/rank-topology";
import { PastRuns } from "@/components/jobs/runs/past-runs";
import { ScalingHistory } from "@/components/jobs/scaling-history";
import { useNow } from "@/components/jobs/use-now";
import { IntentLink } from "@/components/shell/intent-link";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import type { JobPage } from "@/server/domain/jobs/pages";
import { ranksText } from "@/server/domain/jobs/view-model-summary";
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

/** Succeeded or Failed: the page shows what was, and offers no action on what no longer runs. */
const isFinished = (page: { phase: string }) => page.phase === "Succeeded" || page.phase === "Failed";

function JobHeader(props: { page: JobPage; now: number; state: ConnectionState; actions: ReactNode }) {
  const { page, now, state } = props;
  return (
    <div className="page-header">
      <div style={{ minWidth: 0 }}>
        {/* A name breaks nowhere (not at its hyphens): cut with "…", whole in its title. */}
        <h1 title={page.name} style={{ whiteSpace: "nowrap", overflow: "hidden", textOverflow: "ellipsis" }}>
          {page.name}
        </h1>
        <ul className="facts" aria-label="Job facts">
          <li>
            {/* The list's status, from the same source (view-model-summary.ts) and component. */}
            Status <JobStatus job={page} now={now} testId="job-status" />
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
          {isFinished(page) ? (
            // Its ranks no longer run: not "0/2 healthy" (job-view.ts shows them finished).
            <li>
              Ranks <strong data-testid="ranks-finished">{ranksText(page)}</strong>
            </li>
          ) : (
            <li>
              Ranks healthy <strong data-testid="ranks-healthy">{ranksText(page)}</strong>
            </li>
          )}
          <li>
            Restarts (PLR/pod/JLR){" "}
            <strong data-testid="job-restarts">
              {page.restarts.plr}/{page.restarts.podReplacement}/{page.restarts.jlr}
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
        {page.reason ? (
          // The full reason (new lines kept): the list shows it on one line.
          <p className="muted" data-testid="job-reason" style={{ whiteSpace: "pre-wrap", margin: "8px 0 0" }}>
            <strong>Reason</strong> {page.reason}
          </p>
        ) : null}
      </div>
      <div className="stack stack-start">
        <span className="live-status" role="status" data-state={state}>
          {LIVE_LABEL[state]}
        </span>
        <IntentLink className="button button-secondary" href={`/jobs/${page.namespace}/${page.name}/policy`}>
          Policy
        </IntentLink>
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

function allowed(access: { canAct?: boolean; mode?: string } | undefined, finished: boolean) {
  const canAct = access?.canAct ?? false;
  return {
    canAct,
    canActLive: canAct && !finished,
    canInject: (access?.mode ?? "local") === "local" && !finished,
  };
}

/**
 * The sections under the rank table, from the page's deferred copy and clock (see JobView); memoised, so the
 * urgent render of an update skips them and React renders them after, in a render it may interrupt.
 */
const BelowRanks = memo(function BelowRanks(props: {
  page: JobPage;
  now: number;
  selected: number | null;
  jobRef: { namespace: string; name: string };
}) {
  const { page, now, selected, jobRef } = props;
  return (
    <>
      <JobTimeline page={page} now={now} />
      <ScalingHistory
        events={page.events}
        elastic={page.elastic}
        rows={page.scaling}
        createdAt={page.createdAt}
        now={now}
      />

      <JobCharts job={jobRef} selected={selected} createdAt={page.createdAt} />

      <section className="card" aria-labelledby="past-runs-heading">
        <h2 id="past-runs-heading">Past runs</h2>
        <PastRuns namespace={page.namespace} name={page.name} finished={isFinished(page)} />
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
    </>
  );
});

export function JobView(props: { namespace: string; name: string }) {
  const ref = useMemo(
    () => ({ namespace: props.namespace, name: props.name }),
    [props.namespace, props.name],
  );
  const { page, access, state, streamError } = useLiveJob(ref);
  const [selected, setSelected] = useState<number | null>(null);
  const now = useNow();
  // What is below the ranks (timeline, scaling, charts, past runs, events) renders from a deferred copy: a
  // render React may interrupt, after the header, topology and table are on screen and answering clicks.
  const below = useDeferredValue(page);
  const belowNow = useDeferredValue(now);

  if (!page) {
    if (streamError)
      return <ErrorState title={`Could not load ${props.name}`} message={streamError.message} />;
    return <LoadingState label={props.name} />;
  }
  // A finished job offers nothing that acts on what no longer runs (restarts, fault injection).
  const { canAct, canActLive, canInject } = allowed(access.data, isFinished(page));
  const selectedRank =
    selected === null ? null : (page.topology.ranks.find((rank) => rank.rank === selected) ?? null);
  return (
    <div className="stack">
      <JobHeader
        page={page}
        now={now}
        state={state}
        actions={
          canAct ? (
            <JobActions job={ref} suspended={page.status === "Suspended"} finished={isFinished(page)} />
          ) : null
        }
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
        <RankPanel job={ref} rank={selectedRank} canAct={canActLive} canInject={canInject} />
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

      {below ? <BelowRanks page={below} now={belowNow} selected={selected} jobRef={ref} /> : null}
    </div>
  );
}
