import type { Db } from "@/server/db/client";
import { completeFault, type FaultCompletion, type NewRestartEvent, recordFault } from "./mutations";

export type { FaultCompletion, NewRestartEvent } from "./mutations";

/**
 * What the operator's reconcilers need of the restart timeline, so unit tests can run them on an in-memory
 * store (server/operator/testing/fake-restart-events.ts) and the operator on Postgres.
 */
export type RestartEventStore = {
  /** Inserts the row unless one with its id exists; true when this call inserted it. */
  record(fault: NewRestartEvent): Promise<boolean>;
  /** Completes a pending row; true when this call completed it, false when it already was (or is absent). */
  complete(id: string, result: FaultCompletion): Promise<boolean>;
};

export function createRestartEventStore(db: Db): RestartEventStore {
  return {
    record: (fault) => recordFault(db, fault),
    complete: (id, result) => completeFault(db, id, result),
  };
}
