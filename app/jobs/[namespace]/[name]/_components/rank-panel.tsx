"use client";

import { formatLoss, formatNumber } from "@/components/jobs/format";
import { LiveNote } from "@/lib/live/live-note";
import { useLive } from "@/lib/live/use-live";
import { useTRPC } from "@/lib/trpc/client";
import type { RankView } from "@/server/domain/jobs/view-model";
import { applyTail } from "@/server/domain/live/tail-diff";
import type { LogLine } from "@/server/services/jobs/queries";
import { ConfirmButton } from "./confirm-button";
import { useJobAction } from "./job-actions";

type Ref = { namespace: string; name: string };

const FAULTS = [
  { kind: "crash", label: "Inject crash", what: "kills this rank's process" },
  { kind: "hang", label: "Inject hang", what: "makes this rank stop printing steps" },
  { kind: "nan", label: "Inject NaN", what: "makes this rank's loss NaN" },
  { kind: "slow", label: "Inject slowdown", what: "slows this rank down" },
] as const;

const applyLines = applyTail<LogLine>;

function LogView(props: { rank: number; lines: LogLine[] }) {
  if (props.lines.length === 0) return <p className="muted">No output from this rank yet.</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling log must be reachable by keyboard (WCAG 2.1.1)
    <pre className="log-view" role="log" aria-label={`Log of rank ${props.rank}`} tabIndex={0}>
      {props.lines.map((line, index) =>
        line.matches.length > 0 ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: log lines have no identity but their position
          <mark key={index} title={`matches ${line.matches.join(", ")}`}>
            {line.text}
            {"\n"}
          </mark>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: log lines have no identity but their position
          <span key={index}>
            {line.text}
            {"\n"}
          </span>
        ),
      )}
    </pre>
  );
}

/** The rank's log tail, pushed as lines arrive (jobs.logsWatch): no polling from the browser. */
function RankLogs(props: { job: Ref; rank: RankView }) {
  const trpc = useTRPC();
  const logs = useLive(
    trpc.jobs.logsWatch.subscriptionOptions({
      job: props.job,
      pod: props.rank.pod,
      localRank: props.rank.localRank,
      tail: 200,
    }),
    applyLines,
  );
  if (logs.data === null) {
    if (logs.status === "unavailable") return <p role="alert">Logs unavailable: {logs.error}</p>;
    return <p className="muted">Loading logs…</p>;
  }
  return (
    <>
      <LiveNote status={logs.status} error={logs.error} />
      <LogView rank={props.rank.rank} lines={logs.data} />
    </>
  );
}

/** The selected rank: its numbers, its actions (restart, fault injection on the local back end), its log. */
export function RankPanel(props: { job: Ref; rank: RankView; canAct: boolean; canInject: boolean }) {
  const act = useJobAction();
  const { rank, job } = props;
  return (
    <section className="card" aria-labelledby="rank-heading">
      <h2 id="rank-heading">
        Rank {rank.rank} <span className="muted">on {rank.pod}</span>
      </h2>
      <ul className="facts">
        <li>
          Health <strong data-testid="selected-rank-health">{rank.health}</strong>
        </li>
        <li>
          Step <strong>{rank.step ?? "—"}</strong>
        </li>
        <li>
          Loss <strong>{formatLoss(rank.loss)}</strong>
        </li>
        <li>
          Throughput <strong>{formatNumber(rank.throughput, 1)}</strong>
        </li>
        <li>
          Restarts <strong>{rank.restarts}</strong>
        </li>
      </ul>
      {props.canAct ? (
        <fieldset className="actions">
          <legend className="sr-only">Actions on rank {rank.rank}</legend>
          <ConfirmButton
            label="Restart rank"
            title={`Restart rank ${rank.rank}?`}
            onConfirm={() => act.mutate({ job, input: { action: "restart-rank", rank: rank.rank } })}
          >
            Every process of the job restarts in place (a rank cannot rejoin its collective alone); pods stay.
          </ConfirmButton>
          <ConfirmButton
            label="Restart pod"
            title={`Replace pod ${rank.pod}?`}
            onConfirm={() => act.mutate({ job, input: { action: "restart-pod", pod: rank.pod } })}
          >
            The pod is deleted and created again; the other ranks restart in place.
          </ConfirmButton>
          {props.canInject
            ? FAULTS.map((fault) => (
                <ConfirmButton
                  key={fault.kind}
                  label={fault.label}
                  title={`${fault.label} into rank ${rank.rank}?`}
                  danger
                  onConfirm={() =>
                    act.mutate({ job, input: { action: "inject-fault", kind: fault.kind, rank: rank.rank } })
                  }
                >
                  This {fault.what}, so you can watch Rebound detect and recover.
                </ConfirmButton>
              ))
            : null}
        </fieldset>
      ) : null}
      {act.isError ? (
        <p role="alert" className="form-error">
          {act.error.message}
        </p>
      ) : null}
      <h3>Log</h3>
      <RankLogs job={job} rank={rank} />
    </section>
  );
}
