import { expect } from "vitest";
import type { GovernanceConfig } from "@/server/domain/governance/types";
import {
  capacityOf,
  configOf,
  DEFAULT_PRIORITY,
  type Scenario,
  type ScenarioEvent,
  type ScenarioStep,
} from "./scenarios";

/**
 * Runs a scenario (scenarios.ts) step by step on one engine and asserts each step's outcome. An engine is
 * driven by events and tells, once settled, which jobs hold capacity and which were preempted meanwhile.
 */

export type JobState = { name: string; team: string; gpus: number; admitted: boolean };

export type Engine = {
  /** Applies the governance configuration (teams already carry the engine's prefix) on `gpus` GPUs. */
  configure(config: GovernanceConfig, gpus: number): Promise<void>;
  submit(job: { name: string; team: string; gpus: number; priority: string }): Promise<void>;
  remove(name: string): Promise<void>;
  /**
   * Runs until `done` holds and stays so (Kueue, which decides on its own time) or until nothing changes any
   * more (local); returns the live jobs and the jobs preempted since the last call.
   */
  settle(done: (outcome: Outcome) => boolean): Promise<Outcome>;
};

export type Outcome = { jobs: readonly JobState[]; preempted: readonly string[] };

/** What a step states, read off an outcome (so a step's expectation and an outcome compare as equals). */
type View = { admitted?: string[]; gpus?: Record<string, number>; preempted: string[] | number };

function viewOf(step: ScenarioStep, outcome: Outcome, prefix: string): View {
  const view: View = {
    preempted: step.preemptedCount !== undefined ? outcome.preempted.length : [...outcome.preempted].sort(),
  };
  if (step.admitted)
    view.admitted = outcome.jobs
      .filter((job) => job.admitted)
      .map((job) => job.name)
      .sort();
  if (step.gpus) {
    const gpus: Record<string, number> = Object.fromEntries(Object.keys(step.gpus).map((t) => [t, 0]));
    for (const job of outcome.jobs)
      if (job.admitted) {
        const team = job.team.slice(prefix.length);
        gpus[team] = (gpus[team] ?? 0) + job.gpus;
      }
    view.gpus = gpus;
  }
  return view;
}

function wantOf(step: ScenarioStep): View {
  const want: View = { preempted: step.preemptedCount ?? [...(step.preempted ?? [])].sort() };
  if (step.admitted) want.admitted = [...step.admitted].sort();
  if (step.gpus) want.gpus = { ...step.gpus };
  return want;
}

const same = (a: View, b: View) => JSON.stringify(a) === JSON.stringify(b);

function configAfter(scenario: Scenario, quotas: Map<string, number>, prefix: string): GovernanceConfig {
  return configOf(
    scenario.teams.map((t) => ({ ...t, gpus: quotas.get(t.name) ?? t.gpus })),
    prefix,
    scenario.scheduler,
  );
}

async function apply(engine: Engine, event: ScenarioEvent, prefix: string): Promise<boolean> {
  if ("submit" in event) {
    await engine.submit({
      name: event.submit,
      team: `${prefix}${event.team}`,
      gpus: event.gpus,
      priority: event.priority ?? DEFAULT_PRIORITY,
    });
    return false;
  }
  if ("delete" in event) {
    await engine.remove(event.delete);
    return false;
  }
  return true;
}

export async function runScenario(engine: Engine, scenario: Scenario, prefix = ""): Promise<void> {
  const quotas = new Map<string, number>();
  await engine.configure(configAfter(scenario, quotas, prefix), capacityOf(scenario));
  for (const [index, step] of scenario.steps.entries()) {
    for (const event of step.events) {
      if (!(await apply(engine, event, prefix)) || !("quota" in event)) continue;
      quotas.set(event.quota, event.gpus);
      await engine.configure(configAfter(scenario, quotas, prefix), capacityOf(scenario));
    }
    const want = wantOf(step);
    const outcome = await engine.settle((seen) => same(viewOf(step, seen, prefix), want));
    expect(viewOf(step, outcome, prefix), `${scenario.name}, step ${index + 1}`).toEqual(want);
  }
}
