import type { Db } from "@/server/db/client";
import { canReadTeam, isClusterAdmin } from "@/server/domain/access/roles";
import { AppError } from "@/server/errors";
import { teamsByNamespace } from "@/server/services/access/job-access";
import { type SessionUser, userForToken } from "@/server/services/auth/sessions";
import type { ClusterSource } from "@/server/services/jobs/gateway/types";
import { liveHub } from "@/server/services/wiring";
import { rechecked } from "./rechecked";

/** How often a live stream asks again whether its session may still read what it shows. */
export const RECHECK_ACCESS_MS = 2000;
/** How long one read of the cluster's jobs and nodes serves every live view that wants them. */
export const SHARED_READ_TTL_MS = 500;

/**
 * What a signed-in user may read, as a live source's key and a filter. Everyone with the same readable
 * namespaces shares one loop: a cluster admin reads everything ("*"), anyone else the namespaces of their
 * teams (the rule of server/services/access/job-access.ts: a namespace of no team is for cluster admins).
 */
export type ReadScope = { key: string; visible: (namespace: string) => boolean };

export async function readScope(db: Db, user: SessionUser): Promise<ReadScope> {
  if (isClusterAdmin(user.memberships)) return { key: "*", visible: () => true };
  const teams = await teamsByNamespace(db);
  const namespaces = [...teams]
    .filter(([, team]) => canReadTeam(user.memberships, team.id))
    .map(([namespace]) => namespace)
    .sort();
  const readable = new Set(namespaces);
  return { key: namespaces.join(","), visible: (namespace) => readable.has(namespace) };
}

export type ScopedSession = {
  db: Db;
  user: SessionUser;
  sessionToken: string | undefined;
  signal: AbortSignal | undefined;
};

/**
 * A stream over what the user may read: when that changes (a team joined or left) it starts again on the
 * new scope, with a snapshot; once the session is revoked it ends with UNAUTHORIZED.
 */
export async function* scopedStream<M>(
  session: ScopedSession,
  open: (scope: ReadScope, signal: AbortSignal) => AsyncIterable<M>,
): AsyncGenerator<M, void> {
  let scope = await readScope(session.db, session.user);
  yield* rechecked({
    signal: session.signal,
    everyMs: RECHECK_ACCESS_MS,
    open: (signal) => open(scope, signal),
    recheck: async () => {
      const user = await userForToken(session.db, session.sessionToken);
      if (!user)
        throw new AppError("UNAUTHORIZED", "the session ended: sign in again to keep this view live");
      const next = await readScope(session.db, user);
      if (next.key === scope.key) return "keep";
      scope = next;
      return "reopen";
    },
  });
}

const sourceIds = new WeakMap<ClusterSource, number>();
let lastSourceId = 0;

/** A number per cluster source object, for live keys (the console has one; tests may bring their own). */
export function sourceId(source: ClusterSource): number {
  let id = sourceIds.get(source);
  if (id === undefined) {
    lastSourceId += 1;
    id = lastSourceId;
    sourceIds.set(source, id);
  }
  return id;
}

const shared = new WeakMap<ClusterSource, ClusterSource>();

/**
 * The source with its `jobs()` and `nodes()` read once per SHARED_READ_TTL_MS for every live view (the jobs
 * list of every scope, the cluster page, the TV views); everything else goes to the source itself.
 */
export function sharedReads(source: ClusterSource): ClusterSource {
  const known = shared.get(source);
  if (known) return known;
  const id = sourceId(source);
  const wrapped = new Proxy(source, {
    get(target, key) {
      if (key === "jobs")
        return () => liveHub().cached(`source.jobs:${id}`, SHARED_READ_TTL_MS, () => target.jobs());
      if (key === "nodes")
        return () => liveHub().cached(`source.nodes:${id}`, SHARED_READ_TTL_MS, () => target.nodes());
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  shared.set(source, wrapped);
  return wrapped;
}
