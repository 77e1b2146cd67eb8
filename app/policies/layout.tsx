import type { ReactNode } from "react";
import { RequireSignIn } from "@/components/shell/require-sign-in";

export default function PoliciesLayout({ children }: { children: ReactNode }) {
  return <RequireSignIn>{children}</RequireSignIn>;
}
