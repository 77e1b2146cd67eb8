import { RequireSignIn } from "@/components/shell/require-sign-in";
import { NodeSignalsView } from "./_components/node-signals-view";

export default function NodeSignalsPage() {
  return (
    <>
      <h1>Node signals</h1>
      <p className="muted">
        Which fact of a node says what about it, and what the operator then does with the job pods on it. On
        Kubernetes, rows of the <code>rebound-node-signals</code> ConfigMap in the operator&apos;s namespace
        replace the rows of the same id below (docs/node-signals.md).
      </p>
      <RequireSignIn>
        <NodeSignalsView />
      </RequireSignIn>
    </>
  );
}
