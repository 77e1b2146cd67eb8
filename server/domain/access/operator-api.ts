import { JOB_GROUP, JOB_PLURAL } from "@/server/domain/job-spec/job-spec.schema";
import { faultReachesOtherTeams } from "./roles";

/**
 * Who may call which route of the operator's HTTP API (server/operator/api/routes.ts), as Kubernetes RBAC
 * checks, the way kube-rbac-proxy maps requests to SubjectAccessReviews: a route needs every check in its
 * row. On the kubernetes back end each check is one SubjectAccessReview for the caller; on the local back
 * end the one local token holds every right. Pure: server/operator/api/authorize.ts applies it.
 */
export type OperatorApiRoute =
  | "healthz"
  | "metrics"
  | "jobs.list"
  | "jobs.submit"
  | "jobs.get"
  | "jobs.delete"
  | "jobs.action"
  | "jobs.fault"
  | "jobs.logs"
  | "jobs.runPolicy"
  | "jobs.shadowPolicy"
  | "nodes.list";

/** A resource attribute check (SubjectAccessReview `resourceAttributes`); namespace "" = cluster-wide. */
export type ResourceCheck = {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace: string;
  name?: string;
};

/** Where a grant applies: the whole cluster, or the job's namespace (and the job, by name, when known). */
type Grant = Omit<ResourceCheck, "namespace" | "name"> & { scope: "cluster" | "job" };

export type RouteAccess =
  | { public: true }
  /** `audit`: the AuditLog action a successful call is recorded as (state changes only). */
  | { public: false; grants: readonly Grant[]; audit: string | null };

const job = (verb: string): Grant => ({ verb, group: JOB_GROUP, resource: JOB_PLURAL, scope: "job" });

export const OPERATOR_API_ACCESS = {
  healthz: { public: true },
  metrics: { public: true },
  "jobs.list": {
    public: false,
    grants: [{ verb: "list", group: JOB_GROUP, resource: JOB_PLURAL, scope: "cluster" }],
    audit: null,
  },
  "jobs.get": { public: false, grants: [job("get")], audit: null },
  // A pod's log is read through the operator, so the caller needs what `kubectl logs` needs as well.
  "jobs.logs": {
    public: false,
    grants: [job("get"), { verb: "get", group: "", resource: "pods", subresource: "log", scope: "job" }],
    audit: null,
  },
  // Checked once the body names the job's namespace (the local back end only takes submissions).
  "jobs.submit": { public: false, grants: [job("create")], audit: "operator.job.submit" },
  "jobs.delete": { public: false, grants: [job("delete")], audit: "operator.job.delete" },
  // restart-rank, restart-pod, restart-job, suspend, resume: each changes the job (or its run) → patch.
  "jobs.action": { public: false, grants: [job("patch")], audit: "operator.job.action" },
  "jobs.fault": { public: false, grants: [job("patch")], audit: "operator.job.fault" },
  // Issue 12: replacing spec.runPolicy, and the shadow rules kept as an annotation, both change the job.
  "jobs.runPolicy": { public: false, grants: [job("patch")], audit: "operator.job.run-policy" },
  "jobs.shadowPolicy": { public: false, grants: [job("patch")], audit: "operator.job.shadow-policy" },
  "nodes.list": {
    public: false,
    grants: [{ verb: "list", group: "", resource: "nodes", scope: "cluster" }],
    audit: null,
  },
} as const satisfies Record<OperatorApiRoute, RouteAccess>;

/**
 * Extra rights a fault needs beyond its route's row. A `node` fault fails a whole node, and with it other
 * teams' pods on it: cluster-admin only (every verb on every resource: an RBAC wildcard grant).
 */
export function faultGrants(kind: string): ResourceCheck[] {
  if (!faultReachesOtherTeams(kind)) return [];
  return [{ verb: "*", group: "*", resource: "*", namespace: "" }];
}

/** The checks a call of `route` on `target` needs (none for a public route). */
export function checksFor(
  route: OperatorApiRoute,
  target: { namespace?: string; name?: string } = {},
): ResourceCheck[] {
  const access: RouteAccess = OPERATOR_API_ACCESS[route];
  if (access.public) return [];
  return access.grants.map(({ scope, ...grant }) =>
    scope === "cluster"
      ? { ...grant, namespace: "" }
      : {
          ...grant,
          namespace: target.namespace ?? "",
          ...(target.name && !grant.subresource ? { name: target.name } : {}),
        },
  );
}

/** "patch hyperpodpytorchjobs.sagemaker.amazonaws.com in namespace team-a", for 403 messages. */
export function describeCheck(check: ResourceCheck): string {
  const resource = [check.resource, check.subresource].filter(Boolean).join("/");
  const qualified = check.group && check.group !== "*" ? `${resource}.${check.group}` : resource;
  const where = check.namespace ? ` in namespace ${check.namespace}` : " cluster-wide";
  return `${check.verb} ${qualified}${where}`;
}
