import { formatClock, formatDuration } from "@/components/jobs/format";
import type { PolicyDryRun } from "@/server/services/policies/rank-dry-run";
import { DeadlineList } from "./deadline-list";
import styles from "./dry-run.module.css";
import { type DryRunView, offsetText } from "./dry-run-model";
import { toDryRunView } from "./dry-run-view";
import { RuleResult } from "./rule-result";

/** "No fault predicted …": over what, for pasted text or a running rank. */
function NoFault(props: { view: DryRunView }) {
  const { view } = props;
  const { live } = view;
  const lines = view.lines === 1 ? "1 line" : `${view.lines} lines`;
  if (!live)
    return (
      <p>
        <strong>No fault predicted</strong> over {lines} ({formatDuration(view.end - view.start)} of simulated
        time).
      </p>
    );
  const since = live.startedAt === null ? "" : `, ${formatDuration(live.readAt - live.startedAt)} of it`;
  return (
    <p>
      <strong>No fault predicted</strong> on rank {live.rank} (pod {live.pod}, local rank {live.localRank})
      over the {lines} it printed since its attempt started{since}, up to {formatClock(live.readAt)}.
    </p>
  );
}

function Verdict(props: { view: DryRunView }) {
  const { view } = props;
  const { fault } = view;
  return (
    <div
      className={styles.verdict}
      data-fault={fault ? "true" : "false"}
      role="status"
      aria-label="Dry-run verdict"
    >
      {fault ? (
        <p>
          <strong>Predicted fault: {fault.reason}</strong> — rule <strong>{fault.rule}</strong> turns{" "}
          {fault.state} at {formatClock(fault.at)} ({offsetText(fault.at, view.start)}
          {fault.lineNumber !== null
            ? `, line ${fault.lineNumber}`
            : view.live
              ? ", no matching line came in its window"
              : ", after the output ended"}
          ).
        </p>
      ) : (
        <NoFault view={view} />
      )}
      {view.live ? <DeadlineList deadlines={view.deadlines} readAt={view.live.readAt} /> : null}
      {fault && view.nextAction ? (
        <p>
          The restart policy would do next: <strong>{view.nextAction.action}</strong> —{" "}
          {view.nextAction.reason}
        </p>
      ) : null}
      {view.notes.map((note) => (
        <p key={note} className="muted">
          {note}
        </p>
      ))}
    </div>
  );
}

/**
 * A dry-run's answer: the verdict (the predicted fault and what the restart policy would do, or on a
 * running rank the windows still open and when they fire), then each rule.
 */
export function DryRunResultView(props: { result: PolicyDryRun }) {
  const view = toDryRunView(props.result);
  return (
    <>
      <Verdict view={view} />
      <div className={styles.rules}>
        {view.rules.map((rule) => (
          <RuleResult key={rule.name} rule={rule} start={view.start} end={view.end} />
        ))}
      </div>
    </>
  );
}
