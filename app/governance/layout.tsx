import type { ReactNode } from "react";
import { GovernanceLive } from "@/components/governance/governance-live";
import { GovernanceNav } from "@/components/governance/governance-nav";
import { RequireSignIn } from "@/components/shell/require-sign-in";

export default function GovernanceLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <GovernanceNav />
      <RequireSignIn>
        <GovernanceLive />
        {children}
      </RequireSignIn>
    </>
  );
}
