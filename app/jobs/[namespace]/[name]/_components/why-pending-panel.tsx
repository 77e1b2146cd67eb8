"use client";

import { WhyPending } from "@/components/governance/why-pending";
import type { JobPage } from "@/server/domain/jobs/pages";

/**
 * On a job that waits for admission (phase Pending under task governance): why, in numbers. Asked again
 * whenever the live page's status or events move, never polled.
 */
export function WhyPendingPanel({ page }: { page: JobPage }) {
  if (page.phase !== "Pending") return null;
  return (
    <section className="card" aria-labelledby="why-pending-heading">
      <h2 id="why-pending-heading">Why is it pending?</h2>
      <WhyPending
        namespace={page.namespace}
        name={page.name}
        refreshKey={`${page.status}|${page.events.length}|${page.events.at(-1)?.at ?? ""}`}
      />
    </section>
  );
}
