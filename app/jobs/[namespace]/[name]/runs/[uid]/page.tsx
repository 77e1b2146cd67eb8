import { PastRunView } from "@/components/jobs/runs/past-run-view";
import { RequireSignIn } from "@/components/shell/require-sign-in";

export default async function PastRunPage({
  params,
}: {
  params: Promise<{ namespace: string; name: string; uid: string }>;
}) {
  const { namespace, name, uid } = await params;
  return (
    <RequireSignIn>
      <PastRunView namespace={namespace} name={name} uid={uid} />
    </RequireSignIn>
  );
}
