"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { useTRPC } from "@/lib/trpc/client";
import { IntentLink } from "./intent-link";

/** The TV dashboards (/tv and below) are kiosk screens: no console header, navigation or session menu. */
export const isKioskPath = (pathname: string) => pathname === "/tv" || pathname.startsWith("/tv/");

/** The console's header and page frame around every page, except on the kiosk paths. */
export function ConsoleChrome({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  if (isKioskPath(pathname)) return children;
  return (
    <>
      <header className="shell-header">
        <a className="shell-brand" href="/">
          Rebound
        </a>
        <MainNav />
        <SessionMenu />
      </header>
      <main className="shell-main">{children}</main>
    </>
  );
}

/** The sections of the console; policies, governance and TV dashboards join this list as they land. */
const SECTIONS = [
  { href: "/", label: "Overview", exact: true },
  { href: "/jobs", label: "Jobs", exact: false },
  { href: "/cluster", label: "Cluster", exact: false },
  { href: "/governance", label: "Governance", exact: false },
  { href: "/policies", label: "Policies", exact: false },
] as const;

export function MainNav() {
  const pathname = usePathname();
  return (
    <nav className="shell-nav" aria-label="Main">
      {SECTIONS.map((section) => {
        const current = section.exact ? pathname === section.href : pathname.startsWith(section.href);
        return (
          <IntentLink key={section.href} href={section.href} aria-current={current ? "page" : undefined}>
            {section.label}
          </IntentLink>
        );
      })}
    </nav>
  );
}

export function SessionMenu() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const me = useQuery(trpc.auth.me.queryOptions());
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        router.push("/sign-in");
      },
    }),
  );
  if (me.isPending) return null;
  if (!me.data) {
    return (
      <Link className="shell-session" href="/sign-in">
        Sign in
      </Link>
    );
  }
  const role = me.data.memberships.map(
    (membership) => `${membership.role.replace("_", " ")} · ${membership.teamName}`,
  );
  return (
    <div className="shell-session">
      <span title={role.join("\n")}>{me.data.name}</span>
      <button type="button" className="button-link" onClick={() => signOut.mutate()}>
        Sign out
      </button>
    </div>
  );
}
