"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTRPC } from "@/lib/trpc/client";
import { canReadAudit } from "@/server/domain/access/governance";
import { isClusterAdmin, type Membership } from "@/server/domain/access/roles";
import { canEditGroupMappings } from "@/server/domain/access/sso";
import styles from "./governance.module.css";

type NavLink = { href: string; label: string; exact: boolean; also: string | null };

/**
 * The section's entries, each shown only to who may open it: the rule the page's server side asks
 * (server/domain/access/governance.ts), so no link leads to a 403.
 */
const LINKS: ReadonlyArray<NavLink & { shown: (memberships: readonly Membership[]) => boolean }> = [
  {
    href: "/governance",
    label: "Teams and capacity",
    exact: true,
    also: "/governance/teams/",
    shown: () => true,
  },
  { href: "/governance/scheduler", label: "Scheduler", exact: false, also: null, shown: () => true },
  { href: "/governance/audit", label: "Audit log", exact: false, also: null, shown: canReadAudit },
  { href: "/governance/tv-tokens", label: "TV tokens", exact: false, also: null, shown: isClusterAdmin },
  { href: "/governance/sso", label: "Single sign-on", exact: false, also: null, shown: canEditGroupMappings },
];

/** The governance section's own navigation. */
export function GovernanceNav() {
  const pathname = usePathname();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const memberships = me.data?.memberships ?? [];
  return (
    <nav className={styles.subnav} aria-label="Governance">
      {LINKS.filter((link) => link.shown(memberships)).map((link) => {
        const current =
          (link.exact ? pathname === link.href : pathname.startsWith(link.href)) ||
          (link.also !== null && pathname.startsWith(link.also));
        return (
          <Link key={link.href} href={link.href} aria-current={current ? "page" : undefined}>
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
