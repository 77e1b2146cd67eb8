import { RequireSignIn } from "@/components/shell/require-sign-in";
import { JobView } from "./_components/job-view";

export default async function JobPage({ params }: { params: Promise<{ namespace: string; name: string }> }) {
  const { namespace, name } = await params;
  return (
    <RequireSignIn>
      <JobView namespace={namespace} name={name} />
    </RequireSignIn>
  );
}
