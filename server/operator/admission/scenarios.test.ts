import { describe, it } from "vitest";
import { decideAdmissions } from "@/server/domain/governance";
import { DEFAULT_FLAVOR, type GovernanceConfig, GPU } from "@/server/domain/governance/types";
import { type Engine, type JobState, runScenario } from "@/test/governance-scenarios/run";
import { SCENARIOS } from "@/test/governance-scenarios/scenarios";
import { applyDecision, snapshotOf } from "./local-cycle";
import type { Entry } from "./local-entries";

/**
 * The governance scenarios (test/governance-scenarios/scenarios.ts) on the local back end's admission: its
 * cycle (local-cycle.ts over the domain's decideAdmissions) and its entries, as local.ts runs them, with what
 * the operator does around them: a preempted job's pods stop at once and it is requeued; a deleted job is
 * released. The same scenarios run against real Kueue in scenarios.k8s-test.ts.
 */

const MAX_CYCLES = 200;

function localEngine(): Engine {
  const entries = new Map<string, Entry>();
  let config: GovernanceConfig | null = null;
  let capacity = 0;
  let now = 1_000_000;
  let preempted: string[] = [];
  const keyOf = (name: string) => [...entries.keys()].find((key) => key.endsWith(`/${name}`));

  const jobs = (): JobState[] =>
    [...entries.values()].map((entry) => ({
      name: entry.workload.key.slice(entry.workload.key.indexOf("/") + 1),
      team: entry.workload.team,
      gpus: entry.workload.request[GPU] ?? 0,
      admitted: entry.state !== "pending",
    }));

  /** One admission cycle, as local.ts runs it; whether it changed any entry. */
  const runCycle = (): boolean => {
    if (config === null) throw new Error("configure first");
    now += 1000;
    const capacityNow = { [DEFAULT_FLAVOR]: { [GPU]: capacity } };
    const snapshot = snapshotOf({ config, capacity: capacityNow, entries, now });
    return applyDecision(entries, decideAdmissions(snapshot), now).length > 0;
  };
  /** The preempted jobs' pods are gone at once: they wait again (local.ts requeue). */
  const requeueEvicted = (): number => {
    let requeued = 0;
    for (const [key, entry] of entries) {
      if (entry.state !== "evicting") continue;
      preempted.push(key.slice(key.indexOf("/") + 1));
      entries.set(key, { ...entry, state: "pending", flavor: null, since: now });
      requeued++;
    }
    return requeued;
  };

  return {
    async configure(next, gpus) {
      config = next;
      capacity = gpus;
    },
    async submit({ name, team, gpus, priority }) {
      now += 1000;
      entries.set(`hyperpod-ns-${team}/${name}`, {
        uid: name,
        workload: {
          key: `hyperpod-ns-${team}/${name}`,
          team,
          priorityClass: priority,
          createdAt: now,
          request: { [GPU]: gpus },
          flavors: null,
        },
        state: "pending",
        flavor: null,
        since: now,
        reason: "Pending",
        message: "",
        preemption: null,
      });
    },
    async remove(name) {
      const key = keyOf(name);
      if (key) entries.delete(key);
    },
    async settle() {
      for (let cycle = 0; cycle < MAX_CYCLES; cycle++) {
        const changed = runCycle();
        if (!changed && requeueEvicted() === 0) {
          const outcome = { jobs: jobs(), preempted };
          preempted = [];
          return outcome;
        }
      }
      throw new Error(`no steady state after ${MAX_CYCLES} cycles`);
    },
  };
}

describe("governance scenarios on the local admission", () => {
  it.each(SCENARIOS.map((scenario) => ({ name: scenario.name, scenario })))("$name", async ({ scenario }) => {
    await runScenario(localEngine(), scenario);
  });
});
