import { RequireSignIn } from "@/components/shell/require-sign-in";
import { JobPolicyPage } from "./_components/job-policy-page";

/** A job's run policy: edit, check, dry-run, save to the team's library, shadow and apply (issue 12). */
export default async function JobPolicyRoute({
  params,
}: {
  params: Promise<{ namespace: string; name: string }>;
}) {
  const { namespace, name } = await params;
  return (
    <RequireSignIn>
      <JobPolicyPage namespace={namespace} name={name} />
    </RequireSignIn>
  );
}
