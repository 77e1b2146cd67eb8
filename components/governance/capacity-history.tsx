"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { CapacityChart } from "@/components/charts/capacity-chart";
import { ErrorState, LoadingState } from "@/components/ui/query-state";
import { resourceLabel } from "@/lib/format";
import { useTRPC } from "@/lib/trpc/client";
import type { CapacityHistoryInput } from "@/server/services/governance/governance.schema";
import styles from "./governance.module.css";

type Range = NonNullable<CapacityHistoryInput["range"]>;
const RANGES: readonly Range[] = ["1h", "6h", "24h", "7d"];

/**
 * A team's capacity over time (guaranteed, used, borrowed, lent) from the console's samples
 * (`governance.capacityHistory`), for one resource and range; fetched when the range changes or a new sample
 * is pushed (GovernanceLive, governance-live.tsx).
 */
export function CapacityHistory(props: { team: string; displayName: string; resources: readonly string[] }) {
  const trpc = useTRPC();
  const id = useId();
  const [range, setRange] = useState<Range>("6h");
  const [resource, setResource] = useState(props.resources[0] ?? "nvidia.com/gpu");
  const history = useQuery(
    trpc.governance.capacityHistory.queryOptions({ team: props.team, range, resource }),
  );
  return (
    <div>
      <div className="filters">
        <label htmlFor={`${id}-range`}>
          Range
          <select
            id={`${id}-range`}
            value={range}
            onChange={(event) => {
              const next = RANGES.find((value) => value === event.target.value);
              if (next) setRange(next);
            }}
          >
            {RANGES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        {props.resources.length > 1 ? (
          <label htmlFor={`${id}-resource`}>
            Resource
            <select
              id={`${id}-resource`}
              value={resource}
              onChange={(event) => setResource(event.target.value)}
            >
              {props.resources.map((value) => (
                <option key={value} value={value}>
                  {resourceLabel(value)}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      {history.isPending ? <LoadingState label="capacity history" /> : null}
      {history.isError ? (
        <ErrorState
          title="Could not load capacity history"
          error={history.error}
          onRetry={() => history.refetch()}
        />
      ) : null}
      {history.isSuccess ? (
        <div className={styles.chart}>
          <CapacityChart
            title={`${props.displayName} · ${resourceLabel(resource)}`}
            resource={resource}
            points={history.data.points.map(({ at, ...rest }) => ({ t: at, ...rest }))}
          />
        </div>
      ) : null}
    </div>
  );
}
