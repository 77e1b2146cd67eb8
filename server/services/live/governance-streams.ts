import type { Db } from "@/server/db/client";
import { auditableTeams, canReadGovernance } from "@/server/domain/access/governance";
import { AppError } from "@/server/errors";
import { type SessionUser, userForToken } from "@/server/services/auth/sessions";
import { listGovernanceAudit } from "@/server/services/governance/audit";
import { queueOf } from "@/server/services/governance/queue";
import { buildGovernanceSnapshot, type SnapshotWithJobs } from "@/server/services/governance/snapshot";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { liveHub } from "@/server/services/wiring";
import type { LiveMessage, LiveSource } from "./hub";
import { rechecked } from "./rechecked";
import { RECHECK_ACCESS_MS, SHARED_READ_TTL_MS, sharedReads, sourceId } from "./scope";

/**
 * The governance pages, live (issue 36): what changed, not the pages themselves. Each part is a small
 * fingerprint of what the user may read; the page fetches again the views of the part that moved (a new
 * audit row: the audit log and the overview; a queue's admissions: the queues; a capacity sample: the
 * capacity charts). One loop per scope (the same teams read, the same audit), as the jobs list.
 */

/** How often the governance state is looked at (a mutation through this console refreshes at once). */
export const GOVERNANCE_INTERVAL_MS = 1000;

export type GovernanceRevision = {
  /** The newest audit row the user reads ("" when none, or no audit for them). */
  audit: string;
  /** The readable teams' queues: each job's place (pending position, admitted, preempted when). */
  queue: string;
  /** The newest capacity sample of the readable teams (ISO time, "" when none). */
  capacity: string;
};

/** What the user may read here, as a loop key: the audit's teams (null: all) and the readable teams. */
export type GovernanceScope = { key: string; audit: readonly string[] | null; teams: readonly string[] };

export async function governanceScope(db: Db, user: SessionUser): Promise<GovernanceScope> {
  const all = await db.team.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } });
  const teams = all.filter((team) => canReadGovernance(user.memberships, team.id)).map((team) => team.name);
  const audit = auditableTeams(user.memberships);
  const auditKey = audit === null ? "*" : [...audit].sort().join(",");
  return { key: `${auditKey}|${teams.join(",")}`, audit, teams };
}

/** The queues' fingerprint: a job that enters, moves, is admitted or preempted changes it; time passing does not. */
export function queueFingerprint(snap: SnapshotWithJobs, teams: readonly string[]): string {
  return teams
    .map((team) => {
      const view = queueOf(snap, team);
      const pending = view.pending.map((row) => `${row.key}#${row.position}`);
      const admitted = view.admitted.map((row) => row.key);
      const preempted = view.preempted.map((row) => `${row.key}@${row.at}`);
      return `${team}:${pending.join(",")}/${admitted.join(",")}/${preempted.join(",")}`;
    })
    .join(";");
}

async function readRevision(
  db: Db,
  source: ClusterSource,
  scope: GovernanceScope,
): Promise<GovernanceRevision> {
  const snapshot = () =>
    liveHub().cached(`governance.snapshot:${sourceId(source)}`, SHARED_READ_TTL_MS, () =>
      buildGovernanceSnapshot({ db, source: sharedReads(source) }),
    );
  const [audit, snap, sample] = await Promise.all([
    listGovernanceAudit(db, { teams: scope.audit, limit: 1 }),
    scope.teams.length > 0 ? snapshot() : null,
    db.capacitySample.aggregate({ _max: { at: true }, where: { team: { in: [...scope.teams] } } }),
  ]);
  return {
    audit: audit[0]?.id ?? "",
    queue: snap === null ? "" : queueFingerprint(snap, scope.teams),
    capacity: sample._max.at?.toISOString() ?? "",
  };
}

const sameRevision = (a: GovernanceRevision, b: GovernanceRevision) =>
  a.audit === b.audit && a.queue === b.queue && a.capacity === b.capacity;

export function governanceSource(opts: {
  db: Db;
  source: ClusterSource;
  scope: GovernanceScope;
}): LiveSource<GovernanceRevision, GovernanceRevision> {
  const { db, source, scope } = opts;
  return {
    key: `governance:${sourceId(source)}:${scope.key}`,
    intervalMs: GOVERNANCE_INTERVAL_MS,
    load: () => readRevision(db, source, scope),
    // The revision is three short strings: a change sends it whole.
    diff: (previous, next) => (sameRevision(previous, next) ? null : next),
  };
}

/**
 * The governance revision of what the user may read, live; a role changed starts it again on the new scope,
 * a revoked session ends it (UNAUTHORIZED) within RECHECK_ACCESS_MS.
 */
export async function* watchGovernance(session: {
  db: Db;
  source: ClusterSource;
  user: SessionUser;
  sessionToken: string | undefined;
  signal: AbortSignal | undefined;
}): AsyncGenerator<LiveMessage<GovernanceRevision, GovernanceRevision>, void> {
  const { db, source } = session;
  let scope = await governanceScope(db, session.user);
  yield* rechecked({
    signal: session.signal,
    everyMs: RECHECK_ACCESS_MS,
    open: (signal) => liveHub().stream(governanceSource({ db, source, scope }), signal),
    recheck: async () => {
      const user = await userForToken(db, session.sessionToken);
      if (!user)
        throw new AppError("UNAUTHORIZED", "the session ended: sign in again to keep this view live");
      const next = await governanceScope(db, user);
      if (next.key === scope.key) return "keep";
      scope = next;
      return "reopen";
    },
  });
}
