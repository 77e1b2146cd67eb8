"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTRPC } from "@/lib/trpc/client";
import type { JobActionInput } from "@/server/services/jobs/actions";
import { ConfirmButton } from "./confirm-button";

type Ref = { namespace: string; name: string };

/** One mutation for every job action; the server authorises each and writes it to the audit log. */
export function useJobAction() {
  const trpc = useTRPC();
  return useMutation(trpc.jobs.act.mutationOptions());
}

/** The live-only actions (restart, suspend, resume): a finished job (Succeeded, Failed) offers Delete only. */
function LiveActions(props: { suspended: boolean; run: (input: JobActionInput, done: string) => void }) {
  const { run } = props;
  return (
    <>
      <ConfirmButton
        label="Restart job"
        title="Restart the whole job?"
        onConfirm={() => run({ action: "restart-job" }, "full job restart requested")}
      >
        Every pod is deleted and recreated (a full job restart); training resumes from its checkpoint.
      </ConfirmButton>
      {props.suspended ? (
        <ConfirmButton
          label="Resume"
          title="Resume the job?"
          onConfirm={() => run({ action: "resume" }, "resume requested")}
        >
          The job's pods are created again.
        </ConfirmButton>
      ) : (
        <ConfirmButton
          label="Suspend"
          title="Suspend the job?"
          onConfirm={() => run({ action: "suspend" }, "suspend requested")}
        >
          The job's pods are deleted until it is resumed; its GPUs are freed.
        </ConfirmButton>
      )}
    </>
  );
}

export function JobActions(props: {
  job: Ref;
  suspended: boolean;
  /** Succeeded or Failed: nothing runs any more, so only Delete is offered. */
  finished?: boolean;
  onDone?: (message: string) => void;
}) {
  const router = useRouter();
  const act = useJobAction();
  const run = (input: JobActionInput, done: string) =>
    act.mutate({ job: props.job, input }, { onSuccess: () => props.onDone?.(done) });
  return (
    <fieldset className="actions">
      <legend className="sr-only">Job actions</legend>
      {props.finished ? null : <LiveActions suspended={props.suspended} run={run} />}
      <ConfirmButton
        label="Delete"
        title="Delete the job?"
        danger
        onConfirm={() =>
          act.mutate(
            { job: props.job, input: { action: "delete" } },
            { onSuccess: () => router.push("/jobs") },
          )
        }
      >
        The job and its pods are deleted. This cannot be undone.
      </ConfirmButton>
      {act.isError ? (
        <p role="alert" className="form-error">
          {act.error.message}
        </p>
      ) : null}
    </fieldset>
  );
}
