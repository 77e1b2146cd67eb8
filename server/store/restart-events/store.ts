import type { Db } from "@/server/db/client";
import {
  type AwaitingResume,
  completeFault,
  type FaultCompletion,
  findAwaitingResume,
  type NewRestartEvent,
  type ResumeFacts,
  recordFault,
  recordResume,
} from "./mutations";

export type { AwaitingResume, FaultCompletion, NewRestartEvent, ResumeFacts } from "./mutations";

/**
 * What the operator's reconcilers need of the restart timeline, so unit tests can run them on an in-memory
 * store (server/operator/testing/fake-restart-events.ts) and the operator on Postgres.
 */
export type RestartEventStore = {
  /** Inserts the row unless one with its id exists; true when this call inserted it. */
  record(fault: NewRestartEvent): Promise<boolean>;
  /** Completes a pending row; true when this call completed it, false when it already was (or is absent). */
  complete(id: string, result: FaultCompletion): Promise<boolean>;
  /**
   * Training progress after the restart (goodput, server/operator/reconcilers/progress.ts): sets the
   * resume step and time of a row not yet resumed. Optional: a store without it records no progress.
   */
  resume?(id: string, facts: ResumeFacts): Promise<boolean>;
  /** The job run's latest row whose training is not back yet (read once per job by a restarted operator). */
  awaitingResume?(jobUid: string): Promise<AwaitingResume | null>;
};

export function createRestartEventStore(db: Db): RestartEventStore {
  return {
    record: (fault) => recordFault(db, fault),
    complete: (id, result) => completeFault(db, id, result),
    resume: (id, facts) => recordResume(db, id, facts),
    awaitingResume: (jobUid) => findAwaitingResume(db, jobUid),
  };
}
