"use client";

import { formatLoss, formatNumber } from "@/components/jobs/format";
import { RankLog } from "@/components/jobs/rank-log";
import { rankLogDownloadHref } from "@/components/jobs/rank-log-model";
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
      {logs.data.length === 0 ? (
        <p className="muted">No output from this rank yet.</p>
      ) : (
        <RankLog
          rank={props.rank.rank}
          lines={logs.data}
          downloadHref={rankLogDownloadHref(props.job, props.rank.rank)}
        />
      )}
    </>
  );
}

/**
 * The job-wide in-place restart (the operator's restart-rank: every process of the job restarts, pods stay,
 * recorded as a manual restart naming `rank`), labelled for what it does: a rank cannot rejoin its
 * collective alone, so there is no restart of one rank's process.
 */
export function RestartAllInPlace(props: { job: Ref; rank: number }) {
  const act = useJobAction();
  return (
    <>
      <ConfirmButton
        label="Restart all ranks in place"
        title="Restart every rank of the job in place?"
        onConfirm={() => act.mutate({ job: props.job, input: { action: "restart-rank", rank: props.rank } })}
      >
        Every process of the job restarts in place (a rank cannot rejoin its collective alone); pods stay. The
        restart is recorded against rank {props.rank}.
      </ConfirmButton>
      {act.isError ? (
        <p role="alert" className="form-error">
          {act.error.message}
        </p>
      ) : null}
    </>
  );
}

/**
 * The selected rank: its numbers, what can be done to it (replace its pod, fault injection on the local back
 * end), the job-wide in-place restart labelled as such, and its log.
 */
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
            label="Replace this rank's pod"
            title={`Replace pod ${rank.pod}?`}
            onConfirm={() => act.mutate({ job, input: { action: "restart-pod", pod: rank.pod } })}
          >
            Pod {rank.pod}, which runs rank {rank.rank}, is deleted and created again; the other pods' ranks
            restart in place.
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
      {props.canAct ? (
        <fieldset className="actions" style={{ marginTop: 8, alignItems: "center" }}>
          <legend className="sr-only">Actions on the whole job</legend>
          <span className="muted">Whole job:</span>
          <RestartAllInPlace job={job} rank={rank.rank} />
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
