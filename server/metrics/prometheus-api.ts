import { z } from "zod";

/**
 * The Prometheus HTTP API (`/api/v1/query`, `/api/v1/query_range`), every answer parsed with zod: a body
 * that is not what Prometheus sends (a proxy's HTML page, a truncated answer, a sample that is not a
 * number) is an error naming the server and what was wrong, never data handed to a chart. Each call is
 * bounded by a timeout. Throws PrometheusError; the metrics source turns it into "unavailable".
 */
export class PrometheusError extends Error {}

const sampleSchema = z.tuple([z.number(), z.string()]);
const labelsSchema = z.record(z.string(), z.string());
const matrixSchema = z.object({
  resultType: z.literal("matrix"),
  result: z.array(z.object({ metric: labelsSchema, values: z.array(sampleSchema) })),
});
const vectorSchema = z.object({
  resultType: z.literal("vector"),
  result: z.array(z.object({ metric: labelsSchema, value: sampleSchema })),
});
const scalarSchema = z.object({ resultType: z.literal("scalar"), result: sampleSchema });
const answerSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("success"),
    data: z.discriminatedUnion("resultType", [matrixSchema, vectorSchema, scalarSchema]),
  }),
  z.object({ status: z.literal("error"), errorType: z.string().optional(), error: z.string() }),
]);

export type PromSample = { t: number; value: number };
/** One series of an answer: its labels and its samples (epoch ms; NaN and ±Inf dropped). */
export type PromSeries = { labels: Record<string, string>; samples: PromSample[] };

const toSample = ([t, value]: [number, string]): PromSample => ({
  t: Math.round(t * 1000),
  value: Number(value),
});
const finite = (samples: PromSample[]) => samples.filter((sample) => Number.isFinite(sample.value));

export type PrometheusClient = {
  readonly url: string;
  range(query: string, window: { start: number; end: number; stepSeconds: number }): Promise<PromSeries[]>;
  instant(query: string, at?: number): Promise<PromSeries[]>;
};

export function createPrometheusClient(opts: {
  url: string;
  fetch?: typeof fetch;
  /** Each call's bound, connection to last byte (default 3 s). */
  timeoutMs?: number;
}): PrometheusClient {
  const fetchImpl = opts.fetch ?? fetch;
  const base = opts.url.replace(/\/$/, "");
  const timeoutMs = opts.timeoutMs ?? 3000;

  /** The answer's JSON body (undefined: not JSON); a PrometheusError when there is no answer at all. */
  const fetchBody = async (path: string, params: URLSearchParams) => {
    try {
      const response = await fetchImpl(`${base}${path}`, {
        method: "POST",
        body: params,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body: unknown = await response.json().catch(() => undefined);
      return { status: response.status, body };
    } catch (error) {
      throw new PrometheusError(`Prometheus at ${base} does not answer (${failureOf(error, timeoutMs)})`);
    }
  };

  const call = async (path: string, params: URLSearchParams) => {
    const { status, body } = await fetchBody(path, params);
    if (body === undefined)
      throw new PrometheusError(`Prometheus at ${base} answered ${status} with a body that is not JSON`);
    const parsed = answerSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PrometheusError(
        `Prometheus at ${base} gave an answer this console cannot read (${issue?.path.join(".") || "body"}: ${issue?.message ?? "invalid"})`,
      );
    }
    if (parsed.data.status === "error")
      throw new PrometheusError(`Prometheus at ${base}: ${parsed.data.error}`);
    return parsed.data.data;
  };

  return {
    url: base,
    async range(query, window) {
      const params = new URLSearchParams({
        query,
        start: String(window.start / 1000),
        end: String(window.end / 1000),
        step: String(window.stepSeconds),
      });
      const data = await call("/api/v1/query_range", params);
      if (data.resultType !== "matrix")
        throw new PrometheusError(`Prometheus at ${base} answered a range query with a ${data.resultType}`);
      return data.result.map((series) => ({
        labels: series.metric,
        samples: finite(series.values.map(toSample)),
      }));
    },
    async instant(query, at) {
      const params = new URLSearchParams({ query });
      if (at !== undefined) params.set("time", String(at / 1000));
      const data = await call("/api/v1/query", params);
      if (data.resultType === "matrix")
        throw new PrometheusError(`Prometheus at ${base} answered an instant query with a matrix`);
      if (data.resultType === "scalar") return [{ labels: {}, samples: finite([toSample(data.result)]) }];
      return data.result.map((series) => ({
        labels: series.metric,
        samples: finite([toSample(series.value)]),
      }));
    },
  };
}

/** Why a request got no answer: its timeout, or the network error's code (ECONNREFUSED, …). */
function failureOf(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
