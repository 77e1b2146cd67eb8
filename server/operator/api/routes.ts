import type { IncomingMessage, ServerResponse } from "node:http";
import type { LocalBackend } from "@/server/cluster/local/backend";
import type { ClusterBackend, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import { checksFor, faultGrants, type OperatorApiRoute } from "@/server/domain/access/operator-api";
import { formatJobSpecErrors } from "@/server/domain/job-spec/job-spec-errors";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import {
  type ActionResponse,
  clusterHistoryQuerySchema,
  type DeleteResponse,
  type HealthResponse,
  type HistoryResponse,
  type JobDetailResponse,
  type JobListResponse,
  jobHistoryQuerySchema,
  type LogsResponse,
  type NodeListResponse,
  type SubmitResponse,
} from "@/server/domain/operator-api/contract";
import { AppError } from "@/server/errors";
import { PROMETHEUS_CONTENT_TYPE } from "@/server/metrics/exposition";
import type { OperatorDeps } from "@/server/operator/reconcilers/deps";
import { jobPolicyState } from "@/server/operator/shadow/policy-state";
import { listRestartEvents } from "@/server/store/restart-events/queries";
import { jobActionSchema, runJobAction } from "./actions";
import { type AuditNote, auditApiChange } from "./audit";
import {
  ANONYMOUS,
  type ApiAuth,
  allowedNamespaces,
  authenticate,
  authorize,
  type Caller,
  refuseForeignRequest,
} from "./authorize";
import { injectFault, injectFaultInputSchema } from "./faults";
import { APP_ERROR_STATUS, HttpError, readBody, sendJson, sendText } from "./http-utils";
import { jobListView, jobSummary } from "./job-summary";
import { podOfJob } from "./pod-param";
import { rankOutput } from "./rank-output";
import type { BodyKind } from "./request-shape";
import { putRunPolicy, putShadowPolicy } from "./run-policy";
import { whyPendingOf } from "./why-pending";

/**
 * The operator's HTTP surface (port 8081): Prometheus /metrics, /healthz and the live-state API the console
 * and the CLI use. Every answer is built to the API contract's types (server/domain/operator-api/contract.ts),
 * which the console and the CLI parse with. Every route but /metrics and /healthz needs a credential and the rights its row in
 * server/domain/access/operator-api.ts names (authorize.ts); every change made is audited (audit.ts).
 * Job submission and fault injection exist for the local back end only.
 */
export type RouteContext = {
  req: IncomingMessage;
  res: ServerResponse;
  deps: OperatorDeps;
  healthy: () => boolean;
  auth: ApiAuth;
};
type CallContext = RouteContext & { caller: Caller };
type Reply = { status: number; body: unknown; text?: string; audit?: AuditNote };
type Route = {
  method: string;
  pattern: RegExp;
  access: OperatorApiRoute;
  /** What the body is read as; its content type must say so (request-shape.ts). Default: JSON. */
  body?: BodyKind;
  /** The handler authorises (the target is known only from the body), instead of before it runs. */
  authorizesItself?: true;
  handle: (ctx: CallContext, params: string[]) => Promise<Reply>;
};

const JOB = "([a-z0-9-]{1,63})/([a-z0-9-]{1,63})";

const describeIssues = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) =>
  issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ");

function asLocal(backend: ClusterBackend): LocalBackend {
  if (backend.kind !== "local")
    throw new HttpError(405, "only the local back end accepts this; use kubectl on Kubernetes");
  return backend as LocalBackend;
}

const refOf = (params: string[]): JobRef => ({ namespace: params[0] ?? "", name: params[1] ?? "" });

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  return JSON.parse((await readBody(req)) || "{}");
}

async function jobDetail(ctx: CallContext, ref: JobRef): Promise<Reply> {
  const job = await ctx.deps.backend.getJob(ref);
  if (!job) throw new HttpError(404, `job ${jobKey(ref)} not found`);
  const [events, restarts, policy] = await Promise.all([
    ctx.deps.backend.listEvents(ref),
    listRestartEvents(ctx.deps.db, { namespace: ref.namespace, jobName: ref.name, jobUid: job.uid }),
    jobPolicyState(ctx.deps.db, job),
  ]);
  const live = ctx.deps.live.get(jobKey(ref)) ?? null;
  const body = {
    job: job.object,
    status: job.status,
    live,
    events,
    restarts: restarts.map((row) => ({
      ...row,
      faultAt: row.faultAt.toISOString(),
      detectedAt: row.detectedAt.toISOString(),
      recoveredAt: row.recoveredAt?.toISOString() ?? null,
    })),
    policy,
  } satisfies JobDetailResponse;
  return { status: 200, body };
}

/** Every job a cluster-wide lister may see; otherwise those in the namespaces the caller may list. */
async function listJobs(ctx: CallContext): Promise<Reply> {
  const view = jobListView(ctx.req.url);
  const live = ctx.deps.live.list();
  const jobs = view === "summary" ? live.map(jobSummary) : live;
  const everywhere = checksFor("jobs.list");
  const decisions = await Promise.all(everywhere.map((check) => ctx.auth.allowed(ctx.caller, check)));
  if (decisions.every((decision) => decision.allowed))
    return { status: 200, body: { jobs } satisfies JobListResponse };
  const visible = await allowedNamespaces(ctx.auth, ctx.caller, {
    namespaces: [...new Set(jobs.map((job) => job.namespace))],
    checksIn: (namespace) => everywhere.map((check) => ({ ...check, namespace })),
  });
  const body = { jobs: jobs.filter((job) => visible.has(job.namespace)) } satisfies JobListResponse;
  return { status: 200, body };
}

/** Parsed once; authorised for the namespace the YAML names (a YAML that does not parse creates nothing). */
async function submit(ctx: CallContext): Promise<Reply> {
  const parsed = parseJobYaml(await readBody(ctx.req));
  if (!parsed.ok)
    return { status: 400, body: { message: formatJobSpecErrors(parsed.errors), errors: parsed.errors } };
  const namespace = parsed.job.metadata.namespace ?? "default";
  await authorize(ctx.auth, ctx.caller, checksFor("jobs.submit", { namespace }));
  const result = await asLocal(ctx.deps.backend).submit(parsed.job);
  if (!result.ok && result.reason === "invalid")
    return { status: 400, body: { message: formatJobSpecErrors(result.errors), errors: result.errors } };
  if (!result.ok) throw new HttpError(409, result.message);
  ctx.deps.log.info("job submitted", { job: jobKey(result.job.ref), caller: ctx.caller.identity });
  const audit = { action: "operator.job.submit", target: jobKey(result.job.ref) };
  const body = { ...result.job.ref, warnings: parsed.warnings } satisfies SubmitResponse;
  return { status: 201, body, audit };
}

async function fault(ctx: CallContext, ref: JobRef): Promise<Reply> {
  const parsed = injectFaultInputSchema.safeParse(await jsonBody(ctx.req));
  if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error.issues));
  const { by, ...input } = parsed.data;
  await authorize(ctx.auth, ctx.caller, [...checksFor("jobs.fault", ref), ...faultGrants(input.kind)]);
  const done = injectFault({ backend: asLocal(ctx.deps.backend), live: ctx.deps.live, ref, input });
  const audit = { action: "operator.job.fault", target: jobKey(ref), by, details: { ...done } };
  return { status: 202, body: done, audit };
}

async function action(ctx: CallContext, ref: JobRef): Promise<Reply> {
  const parsed = jobActionSchema.safeParse(await jsonBody(ctx.req));
  if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error.issues));
  await runJobAction(ctx.deps, ref, parsed.data);
  const { action: name, by, ...details } = parsed.data;
  const audit = { action: `operator.job.${name}`, target: jobKey(ref), by, details };
  return { status: 202, body: { accepted: name } satisfies ActionResponse, audit };
}

async function remove(ctx: CallContext, ref: JobRef): Promise<Reply> {
  const by = new URL(ctx.req.url ?? "/", "http://operator").searchParams.get("by") || undefined;
  await ctx.deps.backend.requestDeletion(ref);
  return {
    status: 202,
    body: { deleting: ref } satisfies DeleteResponse,
    audit: { action: "operator.job.delete", target: jobKey(ref), by },
  };
}

async function logs(ctx: CallContext, ref: JobRef): Promise<Reply> {
  const url = new URL(ctx.req.url ?? "/", "http://operator");
  const pod = await podOfJob(ctx.deps.backend, ref, url.searchParams.get("pod"));
  const tail = Math.min(5000, Math.max(1, Number(url.searchParams.get("tail") ?? 500) || 500));
  const body = { pod, text: await ctx.deps.backend.podLogs(ref, pod, tail) } satisfies LogsResponse;
  return { status: 200, body };
}

/** A history window: at most a day (what the embedded history keeps), ending after it starts. */
const MAX_HISTORY_MS = 24 * 3600 * 1000 + 60_000;

function historyParams(ctx: CallContext) {
  const url = new URL(ctx.req.url ?? "/", "http://operator");
  const namespaces = url.searchParams.getAll("namespace");
  return {
    series: url.searchParams.get("series") ?? undefined,
    start: url.searchParams.get("start") ?? undefined,
    end: url.searchParams.get("end") ?? undefined,
    ...(namespaces.length > 0 ? { namespaces } : {}),
  };
}

function checkWindow(window: { start: number; end: number }): void {
  if (!(window.end > window.start) || window.end - window.start > MAX_HISTORY_MS)
    throw new HttpError(400, "start must be before end, at most 24 h apart");
}

/** One job's embedded metrics history (server/operator/history.ts). */
async function jobHistory(ctx: CallContext, ref: JobRef): Promise<Reply> {
  const parsed = jobHistoryQuerySchema.safeParse(historyParams(ctx));
  if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error.issues));
  checkWindow(parsed.data);
  const body = ctx.deps.live.history.job(ref, parsed.data.series, parsed.data);
  if (!body) throw new HttpError(404, `no metrics history of job ${jobKey(ref)} in this operator`);
  return { status: 200, body: body satisfies HistoryResponse };
}

/** A cluster-wide series over the namespaces asked for, narrowed to those the caller may list jobs in. */
async function clusterHistory(ctx: CallContext): Promise<Reply> {
  const parsed = clusterHistoryQuerySchema.safeParse(historyParams(ctx));
  if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error.issues));
  const { series, namespaces } = parsed.data;
  checkWindow(parsed.data);
  const everywhere = checksFor("jobs.list");
  const decisions = await Promise.all(everywhere.map((check) => ctx.auth.allowed(ctx.caller, check)));
  let scope: ReadonlySet<string> | "all" = namespaces ? new Set(namespaces) : "all";
  if (!decisions.every((decision) => decision.allowed)) {
    const asked = namespaces ?? [...new Set(ctx.deps.live.list().map((job) => job.namespace))];
    scope = await allowedNamespaces(ctx.auth, ctx.caller, {
      namespaces: asked,
      checksIn: (namespace) => everywhere.map((check) => ({ ...check, namespace })),
    });
  }
  const body = ctx.deps.live.history.cluster(series, parsed.data, scope);
  return { status: 200, body: body satisfies HistoryResponse };
}

export const routes: Route[] = [
  {
    method: "GET",
    pattern: /^\/healthz$/,
    access: "healthz",
    handle: async (ctx) => ({
      status: ctx.healthy() ? 200 : 503,
      body: { ok: ctx.healthy(), backend: ctx.deps.backend.kind } satisfies HealthResponse,
    }),
  },
  {
    method: "GET",
    pattern: /^\/metrics$/,
    access: "metrics",
    handle: async (ctx) => ({ status: 200, body: null, text: await ctx.deps.metrics.registry.render() }),
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/jobs$/,
    access: "jobs.list",
    authorizesItself: true,
    handle: listJobs,
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/jobs$/,
    access: "jobs.submit",
    body: "yaml",
    authorizesItself: true,
    handle: submit,
  },
  {
    method: "GET",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}$`),
    access: "jobs.get",
    handle: (ctx, params) => jobDetail(ctx, refOf(params)),
  },
  {
    method: "DELETE",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}$`),
    access: "jobs.delete",
    handle: (ctx, params) => remove(ctx, refOf(params)),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/faults$`),
    access: "jobs.fault",
    authorizesItself: true,
    handle: (ctx, params) => fault(ctx, refOf(params)),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/actions$`),
    access: "jobs.action",
    handle: (ctx, params) => action(ctx, refOf(params)),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/logs$`),
    access: "jobs.logs",
    handle: (ctx, params) => logs(ctx, refOf(params)),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/rank-output$`),
    access: "jobs.logs",
    handle: (ctx, params) => rankOutput(ctx, refOf(params)),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/why-pending$`),
    access: "jobs.get",
    handle: (ctx, params) => whyPendingOf(ctx.deps, refOf(params)),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/history$`),
    access: "jobs.get",
    handle: (ctx, params) => jobHistory(ctx, refOf(params)),
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/history$/,
    access: "jobs.list",
    authorizesItself: true,
    handle: clusterHistory,
  },
  {
    method: "PUT",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/run-policy$`),
    access: "jobs.runPolicy",
    handle: async (ctx, params) => putRunPolicy(ctx.deps.backend, refOf(params), await jsonBody(ctx.req)),
  },
  {
    method: "PUT",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/shadow-policy$`),
    access: "jobs.shadowPolicy",
    handle: async (ctx, params) => putShadowPolicy(ctx.deps.backend, refOf(params), await jsonBody(ctx.req)),
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/nodes$/,
    access: "nodes.list",
    handle: async (ctx) => ({
      status: 200,
      body: { nodes: [...(await ctx.deps.backend.listNodes())] } satisfies NodeListResponse,
    }),
  },
];

function findRoute(method: string | undefined, pathname: string): { route: Route; params: string[] } | null {
  for (const route of routes) {
    const match = route.pattern.exec(pathname);
    if (match && route.method === method) return { route, params: match.slice(1) };
  }
  return null;
}

const PUBLIC: ReadonlySet<OperatorApiRoute> = new Set(["healthz", "metrics"]);

/** Runs the route for an admitted caller, then records the change it made (if any) before answering. */
async function serve(ctx: RouteContext, pathname: string): Promise<void> {
  const found = findRoute(ctx.req.method, pathname);
  refuseForeignRequest(ctx.req, ctx.auth, { body: found?.route.body ?? "json" });
  const isPublic = found !== null && PUBLIC.has(found.route.access);
  const caller = isPublic ? ANONYMOUS : await authenticate(ctx.auth, ctx.req);
  if (!found) throw new HttpError(404, `no route for ${ctx.req.method} ${pathname}`);
  const { route, params } = found;
  if (!isPublic && !route.authorizesItself)
    await authorize(ctx.auth, caller, checksFor(route.access, refOf(params)));
  const reply = await route.handle({ ...ctx, caller }, params);
  if (reply.audit) await auditApiChange(ctx.deps.db, caller, reply.audit);
  if (reply.text !== undefined) sendText(ctx.res, reply.status, reply.text, PROMETHEUS_CONTENT_TYPE);
  else sendJson(ctx.res, reply.status, reply.body);
}

function answerError(ctx: RouteContext, pathname: string, error: unknown): void {
  if (error instanceof SyntaxError) {
    sendJson(ctx.res, 400, { message: `body is not JSON: ${error.message}` });
    return;
  }
  if (error instanceof AppError) {
    sendJson(ctx.res, APP_ERROR_STATUS[error.code], { message: error.message });
    return;
  }
  if (!(error instanceof HttpError)) {
    ctx.deps.log.error("request failed", { path: pathname, error: String(error) });
    sendJson(ctx.res, 500, { message: "internal error" });
    return;
  }
  if ([401, 403, 415, 421].includes(error.status)) {
    const { method } = ctx.req;
    ctx.deps.log.warn("request refused", {
      path: pathname,
      method,
      status: error.status,
      message: error.message,
    });
  }
  sendJson(ctx.res, error.status, { message: error.message });
}

export async function handleRequest(ctx: RouteContext): Promise<void> {
  const { pathname } = new URL(ctx.req.url ?? "/", "http://operator");
  try {
    await serve(ctx, pathname);
  } catch (error) {
    answerError(ctx, pathname, error);
  }
}
