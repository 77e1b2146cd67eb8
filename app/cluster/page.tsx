import { RequireSignIn } from "@/components/shell/require-sign-in";
import { ClusterNodes } from "./_components/cluster-nodes";

export default function ClusterPage() {
  return (
    <>
      <h1>Cluster</h1>
      <RequireSignIn>
        <ClusterNodes />
      </RequireSignIn>
    </>
  );
}
