import Link from "next/link";
import { RequireSignIn } from "@/components/shell/require-sign-in";
import { ClusterNodes } from "./_components/cluster-nodes";

export default function ClusterPage() {
  return (
    <>
      <div className="page-header">
        <h1>Cluster</h1>
        <Link href="/cluster/node-signals">Node signals</Link>
      </div>
      <RequireSignIn>
        <ClusterNodes />
      </RequireSignIn>
    </>
  );
}
