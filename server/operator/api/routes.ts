import type { IncomingMessage, ServerResponse } from "node:http";
import type { LocalBackend } from "@/server/cluster/local/backend";
import type { ClusterBackend, JobRef } from "@/server/cluster/types";
import { jobKey } from "@/server/cluster/types";
import { formatJobSpecErrors } from "@/server/domain/job-spec/job-spec-errors";
import { PROMETHEUS_CONTENT_TYPE } from "@/server/metrics/exposition";
import type { OperatorDeps } from "@/server/operator/reconcilers/deps";
import { listRestartEvents } from "@/server/services/restart-events/queries";
import { jobActionSchema, runJobAction } from "./actions";
import { injectFault, injectFaultInputSchema } from "./faults";
import { HttpError, readBody, sendJson, sendText } from "./http-utils";

/**
 * The operator's HTTP surface (port 8081): Prometheus /metrics, /healthz, and the live-state API the console
 * and the CLI use. Job submission and fault injection exist for the local back end only.
 */
type Route = {
  method: string;
  pattern: RegExp;
  handle: (ctx: RouteContext, params: string[]) => Promise<void>;
};
type RouteContext = { req: IncomingMessage; res: ServerResponse; deps: OperatorDeps; healthy: () => boolean };

const JOB = "([a-z0-9-]{1,63})/([a-z0-9-]{1,63})";

const describeIssues = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) =>
  issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ");

function asLocal(backend: ClusterBackend): LocalBackend {
  if (backend.kind !== "local")
    throw new HttpError(405, "only the local back end accepts this; use kubectl on Kubernetes");
  return backend as LocalBackend;
}

const refOf = (params: string[]): JobRef => ({ namespace: params[0] ?? "", name: params[1] ?? "" });

async function jobDetail(ctx: RouteContext, ref: JobRef): Promise<void> {
  const job = await ctx.deps.backend.getJob(ref);
  if (!job) throw new HttpError(404, `job ${jobKey(ref)} not found`);
  const [events, restarts] = await Promise.all([
    ctx.deps.backend.listEvents(ref),
    listRestartEvents(ctx.deps.db, { namespace: ref.namespace, jobName: ref.name }),
  ]);
  sendJson(ctx.res, 200, {
    job: job.job,
    status: job.status,
    live: ctx.deps.live.get(jobKey(ref)) ?? null,
    events,
    restarts,
  });
}

async function submit(ctx: RouteContext): Promise<void> {
  const backend = asLocal(ctx.deps.backend);
  const result = await backend.submitYaml(await readBody(ctx.req));
  if (!result.ok && result.reason === "invalid") {
    sendJson(ctx.res, 400, { message: formatJobSpecErrors(result.errors), errors: result.errors });
    return;
  }
  if (!result.ok) throw new HttpError(409, result.message);
  ctx.deps.log.info("job submitted", { job: jobKey(result.job.ref) });
  sendJson(ctx.res, 201, result.job.ref);
}

export const routes: Route[] = [
  {
    method: "GET",
    pattern: /^\/healthz$/,
    handle: async (ctx) =>
      sendJson(ctx.res, ctx.healthy() ? 200 : 503, { ok: ctx.healthy(), backend: ctx.deps.backend.kind }),
  },
  {
    method: "GET",
    pattern: /^\/metrics$/,
    handle: async (ctx) =>
      sendText(ctx.res, 200, await ctx.deps.metrics.registry.render(), PROMETHEUS_CONTENT_TYPE),
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/jobs$/,
    handle: async (ctx) => sendJson(ctx.res, 200, { jobs: ctx.deps.live.list() }),
  },
  { method: "POST", pattern: /^\/api\/v1\/jobs$/, handle: (ctx) => submit(ctx) },
  {
    method: "GET",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}$`),
    handle: (ctx, params) => jobDetail(ctx, refOf(params)),
  },
  {
    method: "DELETE",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}$`),
    handle: async (ctx, params) => {
      await ctx.deps.backend.requestDeletion(refOf(params));
      sendJson(ctx.res, 202, { deleting: refOf(params) });
    },
  },
  {
    method: "POST",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/faults$`),
    handle: async (ctx, params) => {
      const parsed = injectFaultInputSchema.safeParse(JSON.parse((await readBody(ctx.req)) || "{}"));
      if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error.issues));
      const backend = asLocal(ctx.deps.backend);
      sendJson(
        ctx.res,
        202,
        injectFault({ backend, live: ctx.deps.live, ref: refOf(params), input: parsed.data }),
      );
    },
  },
  {
    method: "POST",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/actions$`),
    handle: async (ctx, params) => {
      const parsed = jobActionSchema.safeParse(JSON.parse((await readBody(ctx.req)) || "{}"));
      if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error.issues));
      await runJobAction(ctx.deps, refOf(params), parsed.data);
      sendJson(ctx.res, 202, { accepted: parsed.data.action });
    },
  },
  {
    method: "GET",
    pattern: new RegExp(`^/api/v1/jobs/${JOB}/logs$`),
    handle: async (ctx, params) => {
      const url = new URL(ctx.req.url ?? "/", "http://operator");
      const pod = url.searchParams.get("pod") ?? "";
      const tail = Math.min(5000, Math.max(1, Number(url.searchParams.get("tail") ?? 500) || 500));
      if (!pod.startsWith(`${params[1]}-`))
        throw new HttpError(400, `pod: ${pod || "(none)"} is not one of the job's pods`);
      sendJson(ctx.res, 200, { pod, text: await ctx.deps.backend.podLogs(refOf(params), pod, tail) });
    },
  },
  {
    method: "GET",
    pattern: /^\/api\/v1\/nodes$/,
    handle: async (ctx) => sendJson(ctx.res, 200, { nodes: await ctx.deps.backend.listNodes() }),
  },
];

function findRoute(method: string | undefined, pathname: string): { route: Route; params: string[] } {
  for (const route of routes) {
    const match = route.pattern.exec(pathname);
    if (match && route.method === method) return { route, params: match.slice(1) };
  }
  throw new HttpError(404, `no route for ${method} ${pathname}`);
}

export async function handleRequest(ctx: RouteContext): Promise<void> {
  const url = new URL(ctx.req.url ?? "/", "http://operator");
  try {
    const { route, params } = findRoute(ctx.req.method, url.pathname);
    await route.handle(ctx, params);
  } catch (error) {
    if (error instanceof HttpError) sendJson(ctx.res, error.status, { message: error.message });
    else if (error instanceof SyntaxError)
      sendJson(ctx.res, 400, { message: `body is not JSON: ${error.message}` });
    else {
      ctx.deps.log.error("request failed", { path: url.pathname, error: String(error) });
      sendJson(ctx.res, 500, { message: "internal error" });
    }
  }
}
