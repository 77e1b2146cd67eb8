import { createHash } from "node:crypto";
import { AuthenticationV1Api, AuthorizationV1Api, type KubeConfig } from "@kubernetes/client-node";
import type { ResourceCheck } from "@/server/domain/access/operator-api";

/**
 * Who a bearer token belongs to (TokenReview) and what they may do (SubjectAccessReview), asked of the
 * apiserver as kube-rbac-proxy asks it. Answers are cached briefly (default 10 s, at most 4,096 of each),
 * so a console polling every second costs one review per 10 s, and concurrent identical questions share
 * one request. A failed request is not cached: it throws, and the next call asks again.
 */
export type ReviewedUser = {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
};

export type AccessReview = {
  /** The token's user, or null when the apiserver does not accept the token. */
  authenticate(token: string): Promise<ReviewedUser | null>;
  /** Whether the user may do `check`, with the authorizer's reason when it gives one. */
  allowed(user: ReviewedUser, check: ResourceCheck): Promise<{ allowed: boolean; reason?: string }>;
};

/** A bounded map of promises that expire: the oldest entry goes first once `max` is reached. */
function promiseCache<V>(ttlMs: number, max: number) {
  const entries = new Map<string, { at: number; value: Promise<V> }>();
  return (key: string, load: () => Promise<V>): Promise<V> => {
    const now = Date.now();
    const held = entries.get(key);
    if (held && now - held.at < ttlMs) return held.value;
    entries.delete(key);
    if (entries.size >= max) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    const value = load();
    entries.set(key, { at: now, value });
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key);
    });
    return value;
  };
}

const hash = (text: string) => createHash("sha256").update(text).digest("hex");

export function createAccessReview(opts: {
  kubeConfig: KubeConfig;
  ttlMs?: number;
  maxEntries?: number;
}): AccessReview {
  const authn = opts.kubeConfig.makeApiClient(AuthenticationV1Api);
  const authz = opts.kubeConfig.makeApiClient(AuthorizationV1Api);
  const ttlMs = opts.ttlMs ?? 10_000;
  const max = opts.maxEntries ?? 4096;
  const tokens = promiseCache<ReviewedUser | null>(ttlMs, max);
  const decisions = promiseCache<{ allowed: boolean; reason?: string }>(ttlMs, max);

  const reviewToken = async (token: string): Promise<ReviewedUser | null> => {
    const review = await authn.createTokenReview({ body: { spec: { token } } });
    const status = review.status;
    if (!status?.authenticated || !status.user?.username) return null;
    return {
      username: status.user.username,
      uid: status.user.uid,
      groups: status.user.groups ?? [],
      extra: status.user.extra,
    };
  };

  const reviewAccess = async (user: ReviewedUser, check: ResourceCheck) => {
    const review = await authz.createSubjectAccessReview({
      body: {
        spec: {
          user: user.username,
          uid: user.uid,
          groups: user.groups,
          extra: user.extra,
          resourceAttributes: {
            verb: check.verb,
            group: check.group,
            resource: check.resource,
            subresource: check.subresource,
            namespace: check.namespace || undefined,
            name: check.name,
          },
        },
      },
    });
    return { allowed: review.status?.allowed === true, reason: review.status?.reason || undefined };
  };

  return {
    authenticate: (token) => tokens(hash(token), () => reviewToken(token)),
    allowed: (user, check) => decisions(hash(JSON.stringify([user, check])), () => reviewAccess(user, check)),
  };
}

/**
 * The bearer token the kubeconfig's current user sends (a static token, or one an exec/OIDC plugin gives),
 * or null when that user authenticates otherwise (a client certificate).
 */
export async function currentUserToken(kubeConfig: KubeConfig): Promise<string | null> {
  const options: { headers?: Record<string, string | string[] | number | undefined> } = { headers: {} };
  await kubeConfig.applyToHTTPSOptions(options);
  const header = options.headers?.Authorization ?? options.headers?.authorization;
  const match = typeof header === "string" ? /^Bearer (\S+)$/i.exec(header) : null;
  return match?.[1] ?? null;
}
