import Link from "next/link";
import styles from "./policy.module.css";
import type { JobRef } from "./types";

type Label = { name: string; version: number } | null;

/** Whose policy this is, which library version (if any) it runs under, its shadow, and a pending restart. */
export function JobPolicyHeader(props: {
  job: JobRef;
  applied: Label;
  shadow: Label;
  pendingRestart: boolean;
}) {
  const { job } = props;
  return (
    <div className="page-header">
      <div>
        <h1>Policy of {job.name}</h1>
        <ul className="facts" aria-label="Policy facts">
          <li>
            Job{" "}
            <strong>
              <Link href={`/jobs/${job.namespace}/${job.name}`}>
                {job.namespace}/{job.name}
              </Link>
            </strong>
          </li>
          <li>
            Enforcing{" "}
            <strong data-testid="applied-policy">
              {props.applied ? `${props.applied.name} v${props.applied.version}` : "the job's own runPolicy"}
            </strong>
          </li>
          <li>
            Shadow{" "}
            <strong data-testid="shadow-policy">
              {props.shadow ? `${props.shadow.name} v${props.shadow.version}` : "none"}
            </strong>
          </li>
        </ul>
        {props.pendingRestart ? (
          <p role="status" className={styles.notice}>
            New rules take effect at the next restart: the running agents keep the rules they started with.
          </p>
        ) : null}
      </div>
    </div>
  );
}
