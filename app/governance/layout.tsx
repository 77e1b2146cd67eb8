import type { ReactNode } from "react";
import { GovernanceNav } from "@/components/governance/governance-nav";
import { RequireSignIn } from "@/components/shell/require-sign-in";

export default function GovernanceLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <GovernanceNav />
      <RequireSignIn>{children}</RequireSignIn>
    </>
  );
}
