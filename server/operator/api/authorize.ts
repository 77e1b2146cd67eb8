import type { IncomingMessage } from "node:http";
import type { AccessReview, ReviewedUser } from "@/server/cluster/kubernetes/access-review";
import { sameToken } from "@/server/cluster/local-token";
import { describeCheck, type ResourceCheck } from "@/server/domain/access/operator-api";
import { HttpError } from "./http-utils";
import { type BodyKind, refuseContentType, refuseForeignHost } from "./request-shape";

/**
 * The one place that decides who may call the operator's API (the rule table is pure, in
 * server/domain/access/operator-api.ts). A request is first authenticated (401 without a credential or
 * with one that is not accepted), then authorised check by check (403 naming the missing right). Nothing
 * runs before both pass.
 *   - local back end: the token in <data dir>/operator-token, compared in constant time; it holds every right.
 *   - kubernetes: TokenReview for the bearer token, then a SubjectAccessReview per check (AccessReview).
 * Request-shape rules (the hardening issue) belong in `refuseForeignRequest`, which runs first.
 */
export type Caller =
  | { via: "local-token"; identity: "local-token" }
  | { via: "kubernetes"; identity: string; user: ReviewedUser }
  /** The caller of a public route (/healthz, /metrics): holds no right at all. */
  | { via: "anonymous"; identity: "anonymous" };

export const ANONYMOUS: Caller = { via: "anonymous", identity: "anonymous" };

export type ApiAuth = {
  /** "local": the local token, loopback only (Host and Origin checked); "metrics-only": see NOBODY. */
  readonly kind: "local" | "kubernetes" | "metrics-only";
  /** Where to find a credential, for the 401 message. */
  readonly hint: string;
  authenticate(token: string): Promise<Caller | null>;
  allowed(caller: Caller, check: ResourceCheck): Promise<{ allowed: boolean; reason?: string }>;
};

export function localTokenAuth(opts: { token: string; tokenFile: string }): ApiAuth {
  const caller: Caller = { via: "local-token", identity: "local-token" };
  return {
    kind: "local",
    hint: `the token in ${opts.tokenFile}`,
    authenticate: async (token) => (sameToken(token, opts.token) ? caller : null),
    allowed: async (caller) => ({ allowed: caller.via === "local-token" }),
  };
}

export function kubernetesAuth(review: AccessReview): ApiAuth {
  return {
    kind: "kubernetes",
    hint: "a Kubernetes service-account or user token",
    async authenticate(token) {
      const user = await review.authenticate(token).catch((error: unknown) => {
        throw new HttpError(503, `cannot verify the credential with the Kubernetes API (${String(error)})`);
      });
      return user && { via: "kubernetes", identity: user.username, user };
    },
    async allowed(caller, check) {
      if (caller.via !== "kubernetes") return { allowed: false };
      return review.allowed(caller.user, check).catch((error: unknown) => {
        throw new HttpError(503, `cannot check access with the Kubernetes API (${String(error)})`);
      });
    },
  };
}

/**
 * For a listener that serves only the public routes (/metrics, /healthz): no credential is accepted. No Host
 * rule either: Prometheus scrapes it by pod IP on Kubernetes, and it serves nothing but public reads.
 */
export const NOBODY: ApiAuth = {
  kind: "metrics-only",
  hint: "this port serves /metrics and /healthz only; the API is on OPERATOR_PORT",
  authenticate: async () => null,
  allowed: async () => ({ allowed: false }),
};

/**
 * Rules on the request itself, before any credential is looked at (request-shape.ts): everywhere, a write
 * carries `application/json` (job submission: YAML under its own type, or JSON), else 415; on the local
 * API, Host must name this listener on loopback (421) and an Origin, if sent, that same origin (403). On
 * Kubernetes the Host is the Service's name and callers are authenticated by the apiserver: no Host rule.
 */
export function refuseForeignRequest(req: IncomingMessage, auth: ApiAuth, opts: { body: BodyKind }): void {
  if (auth.kind === "local") refuseForeignHost(req);
  refuseContentType(req, opts.body);
}

/** The caller of `req`; throws 401 when it carries no credential or one that is not accepted. */
export async function authenticate(auth: ApiAuth, req: IncomingMessage): Promise<Caller> {
  const header = req.headers.authorization;
  if (!header)
    throw new HttpError(401, `authorization required: send \`authorization: Bearer <token>\` (${auth.hint})`);
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  if (!match?.[1]) throw new HttpError(401, "authorization: expected `Bearer <token>`");
  const caller = await auth.authenticate(match[1]);
  if (!caller) throw new HttpError(401, `the bearer token was not accepted (expected ${auth.hint})`);
  return caller;
}

/** Throws 403 naming the first right the caller lacks. */
export async function authorize(auth: ApiAuth, caller: Caller, checks: readonly ResourceCheck[]) {
  const decisions = await Promise.all(checks.map((check) => auth.allowed(caller, check)));
  const refused = decisions.findIndex((decision) => !decision.allowed);
  const check = checks[refused];
  if (!check) return;
  const reason = decisions[refused]?.reason;
  throw new HttpError(
    403,
    `${caller.identity} may not ${describeCheck(check)}${reason ? ` (${reason})` : ""}`,
  );
}

/** Of `namespaces`, those where the caller passes every check `checksIn(namespace)` asks for. */
export async function allowedNamespaces(
  auth: ApiAuth,
  caller: Caller,
  opts: { namespaces: readonly string[]; checksIn: (namespace: string) => ResourceCheck[] },
): Promise<Set<string>> {
  const results = await Promise.all(
    opts.namespaces.map(async (namespace) => {
      const decisions = await Promise.all(
        opts.checksIn(namespace).map((check) => auth.allowed(caller, check)),
      );
      return decisions.every((decision) => decision.allowed) ? namespace : null;
    }),
  );
  return new Set(results.filter((namespace): namespace is string => namespace !== null));
}
