import { CoordinationV1Api, type KubeConfig, type V1Lease, V1MicroTime } from "@kubernetes/client-node";
import type { Logger } from "@/server/log";

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's leaderelection does: the holder renews
 * every `renewMs`; a candidate takes the lease once it has not been renewed for `leaseDurationSeconds`
 * (as seen by the candidate's own clock since it last saw the lease change, so clock skew between
 * replicas does not matter). Every write carries the resourceVersion it read, so two candidates can never
 * both win. A holder that cannot renew in time calls `onLost` and
 * stops acting (the operator then exits, and its Deployment restarts it as a candidate). As in client-go, a
 * holder gives up after two thirds of the lease duration without a renewal, while others wait the full
 * duration, so two replicas never act at once.
 */

export type LeaderElectionOptions = {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  renewMs?: number;
  retryMs?: number;
  log: Logger;
  onStarted: () => void;
  onLost: () => void;
  clock?: () => number;
};

export type LeaderElection = {
  readonly leading: boolean;
  /** Stops campaigning; `release` (the default) hands the lease over at once. */
  stop(opts?: { release?: boolean }): Promise<void>;
};

const statusCode = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
};

export function startLeaderElection(opts: LeaderElectionOptions): LeaderElection {
  const api = opts.kubeConfig.makeApiClient(CoordinationV1Api);
  const clock = opts.clock ?? Date.now;
  const durationSeconds = opts.leaseDurationSeconds ?? 15;
  const renewMs = opts.renewMs ?? Math.round((durationSeconds * 1000) / 3);
  const retryMs = opts.retryMs ?? Math.round((durationSeconds * 1000) / 5);
  let leading = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let lastRenewed = 0;
  /** The lease as last observed and when (by our clock) it last changed. */
  let observed: { resourceVersion: string; at: number } | null = null;

  const leaseBody = (current: V1Lease | null): V1Lease => {
    const now = new V1MicroTime(clock());
    const takingOver = current?.spec?.holderIdentity !== opts.identity;
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: {
        name: opts.name,
        namespace: opts.namespace,
        ...(current?.metadata?.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}),
      },
      spec: {
        holderIdentity: opts.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: takingOver ? now : (current?.spec?.acquireTime ?? now),
        renewTime: now,
        leaseTransitions: (current?.spec?.leaseTransitions ?? 0) + (takingOver && current ? 1 : 0),
      },
    };
  };

  const readLease = async (): Promise<V1Lease | null> => {
    try {
      return await api.readNamespacedLease({ name: opts.name, namespace: opts.namespace });
    } catch (error) {
      if (statusCode(error) === 404) return null;
      throw error;
    }
  };

  /** Expired: not renewed (its resourceVersion unchanged) for its duration, as timed by our clock. */
  const isExpired = (current: V1Lease): boolean => {
    const version = current.metadata?.resourceVersion ?? "";
    if (observed?.resourceVersion !== version) observed = { resourceVersion: version, at: clock() };
    const since = observed?.at ?? clock();
    return clock() - since > (current.spec?.leaseDurationSeconds ?? durationSeconds) * 1000;
  };

  const tryAcquireOrRenew = async (): Promise<boolean> => {
    const current = await readLease();
    if (!current) {
      await api.createNamespacedLease({ namespace: opts.namespace, body: leaseBody(null) });
      return true;
    }
    const holder = current.spec?.holderIdentity ?? "";
    if (holder && holder !== opts.identity && !isExpired(current)) return false;
    await api.replaceNamespacedLease({
      name: opts.name,
      namespace: opts.namespace,
      body: leaseBody(current),
    });
    return true;
  };

  const attempt = async (): Promise<boolean> => {
    try {
      return await tryAcquireOrRenew();
    } catch (error) {
      // A conflict means another replica wrote first: we lost this round.
      if (statusCode(error) !== 409) opts.log.warn("lease update failed", { error: String(error) });
      return false;
    }
  };

  const lease = `${opts.namespace}/${opts.name}`;

  const releaseOnce = async () => {
    const current = await api.readNamespacedLease({ name: opts.name, namespace: opts.namespace });
    if (current.spec?.holderIdentity !== opts.identity) return;
    await api.replaceNamespacedLease({
      name: opts.name,
      namespace: opts.namespace,
      body: { ...current, spec: { ...current.spec, holderIdentity: "", leaseDurationSeconds: 1 } },
    });
  };

  // A renewal still in flight may move the resourceVersion: on a conflict, read again and retry.
  const release = async (attempts = 3): Promise<void> => {
    try {
      await releaseOnce();
    } catch (error) {
      if (statusCode(error) !== 409 || attempts <= 1) throw error;
      await release(attempts - 1);
    }
  };

  const tick = async () => {
    if (stopped) return;
    const won = await attempt();
    if (stopped) return;
    if (won) lastRenewed = clock();
    settle(won);
    timer = setTimeout(() => void tick(), leading ? renewMs : retryMs);
  };

  const settle = (won: boolean) => {
    if (won && !leading) {
      leading = true;
      opts.log.info("became the leader", { lease, identity: opts.identity });
      opts.onStarted();
    } else if (!won && leading && clock() - lastRenewed > (durationSeconds * 1000 * 2) / 3) {
      leading = false;
      opts.log.warn("lost the lease", { lease, identity: opts.identity });
      opts.onLost();
    }
  };
  void tick();

  return {
    get leading() {
      return leading;
    },
    async stop(stopOpts) {
      stopped = true;
      clearTimeout(timer);
      const wasLeading = leading;
      leading = false;
      // Hand the lease over at once instead of making the next leader wait for it to expire.
      if (!wasLeading || stopOpts?.release === false) return;
      await release().catch((error: unknown) =>
        opts.log.warn("could not release the lease", { error: String(error) }),
      );
    },
  };
}
