"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { useTRPC } from "@/lib/trpc/client";

/**
 * Job and cluster views need a signed-in user (the server refuses them otherwise, too). The view starts
 * loading while the session is checked, so the two requests do not wait on each other.
 */
export function RequireSignIn({ children }: { children: ReactNode }) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const me = useQuery(trpc.auth.me.queryOptions());
  if (me.isPending) return children;
  if (!me.data) {
    return (
      <div className="state">
        <p>Sign in to see jobs and the cluster.</p>
        <Link className="button" href={`/sign-in?next=${encodeURIComponent(pathname)}`}>
          Sign in
        </Link>
      </div>
    );
  }
  return children;
}
