import { formatClock, formatDuration } from "@/components/jobs/format";
import type { DryRunResult } from "@/server/domain/policy";
import styles from "./dry-run.module.css";
import { type DryRunView, offsetText } from "./dry-run-model";
import { toDryRunView } from "./dry-run-view";
import { RuleResult } from "./rule-result";

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
          {fault.lineNumber === null ? ", after the output ended" : `, line ${fault.lineNumber}`}).
        </p>
      ) : (
        <p>
          <strong>No fault predicted</strong> over {view.lines} lines ({formatDuration(view.end - view.start)}{" "}
          of simulated time).
        </p>
      )}
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

/** A dry-run's answer: the verdict (predicted fault and what the restart policy would do), then each rule. */
export function DryRunResultView(props: { result: DryRunResult }) {
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
