import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ClusterEvent } from "@/server/cluster/types";
import { ScalingHistory } from "./scaling-history";

const ev = (at: number, reason: string, message: string): ClusterEvent => ({
  type: "Normal",
  reason,
  message,
  at,
});

describe("ScalingHistory", () => {
  it("shows target vs actual replicas, the sizes over time and each scaling with its reason", () => {
    const html = renderToStaticMarkup(
      <ScalingHistory
        events={[
          ev(5000, "Scaling", "Scaling from 1 to 4 replicas: capacity is free"),
          ev(9000, "Scaled", "Scaled from 1 to 4 replicas (1 → 4 replicas in 4.0 s)"),
          ev(20_000, "Scaling", "Scaling from 4 to 2 replicas: higher-priority work needs its capacity"),
        ]}
        elastic={{ targetReplicas: 2, actualReplicas: 4, min: 1, max: 4, why: null }}
        createdAt={0}
        now={30_000}
      />,
    );
    expect(html).toMatch(/Target replicas <strong data-testid="target-replicas">2<\/strong>/);
    expect(html).toMatch(
      /Actual replicas <strong data-testid="actual-replicas">4<\/strong> \(min 1, max 4\)/,
    );
    expect(html).toContain('aria-label="Replicas over time: 1 → 4 → 4"');
    expect(html).toContain("Capacity free: scaled up");
    expect(html).toContain("Preempted: scaled down for higher-priority work");
    expect(html).toContain('<strong>4 → 2</strong> <span class="badge badge-warn">Scaling</span>');
  });

  it("says so before the first scaling, and renders nothing for a job that is not elastic", () => {
    const elastic = {
      targetReplicas: 1,
      actualReplicas: 1,
      min: 1,
      max: 4,
      why: "stabilising before a scale-up",
    };
    const html = renderToStaticMarkup(<ScalingHistory events={[]} elastic={elastic} createdAt={0} now={1} />);
    expect(html).toContain("No scaling yet");
    expect(html).toContain("stabilising before a scale-up");
    expect(renderToStaticMarkup(<ScalingHistory events={[]} createdAt={0} now={1} />)).toBe("");
  });
});
