"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import styles from "./governance.module.css";

const LINKS = [
  { href: "/governance", label: "Teams and capacity", exact: true },
  { href: "/governance/scheduler", label: "Scheduler", exact: false },
  { href: "/governance/audit", label: "Audit log", exact: false },
] as const;

/** The governance section's own navigation. */
export function GovernanceNav() {
  const pathname = usePathname();
  return (
    <nav className={styles.subnav} aria-label="Governance">
      {LINKS.map((link) => {
        const current = link.exact ? pathname === link.href : pathname.startsWith(link.href);
        return (
          <Link key={link.href} href={link.href} aria-current={current ? "page" : undefined}>
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
