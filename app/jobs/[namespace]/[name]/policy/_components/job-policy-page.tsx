"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { JobPolicyWorkspace } from "@/components/policy/job/job-policy-workspace";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { useTRPC } from "@/lib/trpc/client";
import { useLiveJob } from "../../_components/use-live-job";

/**
 * The job's policy page: what the job runs under (policies.forJob) and, over the job page's live stream,
 * whether new rules wait for the next restart and what an attached shadow rule set would have done.
 */
export function JobPolicyPage(props: { namespace: string; name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const job = { namespace: props.namespace, name: props.name };
  const current = useQuery(trpc.policies.forJob.queryOptions(job));
  const live = useLiveJob(job);
  if (current.isPending) return <LoadingState label={`the policy of ${props.name}`} />;
  if (current.isError)
    return (
      <ErrorState
        title={`Could not load the policy of ${props.name}`}
        error={current.error}
        onRetry={() => current.refetch()}
      />
    );
  return (
    <JobPolicyWorkspace
      job={job}
      current={current.data}
      live={
        live.page
          ? {
              pendingRestart: live.page.pendingRestart,
              verdicts: live.page.shadow?.verdicts ?? live.page.verdicts,
            }
          : null
      }
      onJobChanged={() => queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() })}
    />
  );
}
