"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTRPC } from "@/lib/trpc/client";
import { isClusterAdmin } from "@/server/domain/access/roles";
import styles from "./governance.module.css";

const LINKS = [
  { href: "/governance", label: "Teams and capacity", exact: true, also: "/governance/teams/" },
  { href: "/governance/scheduler", label: "Scheduler", exact: false, also: null },
  { href: "/governance/audit", label: "Audit log", exact: false, also: null },
] as const;

/** Cluster admins' own entries (the server refuses anyone else there too). */
const ADMIN_LINKS = [
  { href: "/governance/tv-tokens", label: "TV tokens", exact: false, also: null },
] as const;

/** The governance section's own navigation. */
export function GovernanceNav() {
  const pathname = usePathname();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const admin = me.data ? isClusterAdmin(me.data.memberships) : false;
  return (
    <nav className={styles.subnav} aria-label="Governance">
      {[...LINKS, ...(admin ? ADMIN_LINKS : [])].map((link) => {
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
