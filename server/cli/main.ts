/**
 * `npx rebound <command>`: talk to the operator of the local back end.
 *   rebound submit <job.yaml>                       validate and submit a HyperPodPyTorchJob
 *   rebound jobs                                    list jobs with status, ranks and reason (one line)
 *   rebound job <job>                               one job's status, ranks and its reason in full
 *   rebound fault <job> <crash|hang|nan|slow|node> [--rank N]   inject a fault (local back end); a node
 *         fault said by --source hyperpod (default: the health label) | nvsentinel | npd | eks | dcgm |
 *         device-plugin | cordon | not-ready
 *   rebound delete <job>                            delete a job
 *   rebound install [--dry-run] [--kubeconfig F]   install Rebound on a Kubernetes cluster (deploy/), or only
 *                                                   the console when the CRD belongs to another operator
 * Options: -n/--namespace NS (default: the job's, or hyperpod-ns-llm-research for the demo), --operator URL,
 * --token T (default: REBOUND_OPERATOR_TOKEN, the kubeconfig user's token on Kubernetes, else
 * <data dir>/operator-token; see operator-token.ts).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { z } from "zod";
import {
  jobListResponseSchema,
  NODE_FAULT_SOURCES,
  parseAnswer,
  submitResponseSchema,
} from "@/server/domain/operator-api/contract";
import { jobDetailText, jobsTable } from "./job-format";
import { operatorToken } from "./operator-token";
import { operatorUrl } from "./operator-url";

const USAGE = `usage: rebound submit <job.yaml> | jobs | job <job> | fault <job> <crash|hang|nan|slow|node> [--rank N] | delete <job>
       rebound fault <job> node --source ${NODE_FAULT_SOURCES.join("|")}
       rebound install [--dry-run] [--kubeconfig FILE]
options: -n, --namespace NS   --operator URL   --token TOKEN`;

type Call = { base: string; namespace: string; token: string | null };

async function request(
  call: Call,
  where: { path: string; init?: RequestInit },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = `${call.base}${where.path}`;
  const headers = new Headers(where.init?.headers);
  if (call.token) headers.set("authorization", `Bearer ${call.token}`);
  let response: Response;
  try {
    response = await fetch(url, { ...where.init, headers });
  } catch {
    throw new Error(
      `cannot reach the operator at ${new URL(url).origin}: is \`npm start\` running? (or pass --operator URL)`,
    );
  }
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

function fail(message: string): never {
  console.error(`rebound: ${message}`);
  process.exit(1);
}

async function submit(call: Call, file: string | undefined) {
  if (!file) fail(`submit needs a file\n${USAGE}`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    fail(`cannot read ${file}`);
  }
  const { status, body } = await request(call, {
    path: "/api/v1/jobs",
    init: { method: "POST", body: text, headers: { "content-type": "application/yaml" } },
  });
  if (status === 400) fail(`${file} is not a valid job:\n${String(body.message)}`);
  if (status !== 201) fail(String(body.message ?? `operator answered ${status}`));
  const submitted = answer(submitResponseSchema, body, "POST /api/v1/jobs");
  console.log(`submitted ${submitted.namespace}/${submitted.name}`);
  for (const warning of submitted.warnings) {
    const where = warning.line === undefined ? warning.path : `${warning.path} (line ${warning.line})`;
    console.error(`warning: ${where}: ${warning.message}`);
  }
}

/** An answer parsed with the API contract; an operator of another version stops the CLI in words. */
function answer<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  try {
    return parseAnswer(schema, { body, version: null, what });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
}

async function jobs(call: Call) {
  const { status, body } = await request(call, { path: "/api/v1/jobs" });
  if (status !== 200) fail(String(body.message ?? `operator answered ${status}`));
  const list = answer(jobListResponseSchema, body, "GET /api/v1/jobs").jobs;
  console.log(jobsTable(list, Date.now()));
}

async function job(call: Call, name: string | undefined) {
  if (!name) fail(`job needs a job name\n${USAGE}`);
  const { status, body } = await request(call, { path: "/api/v1/jobs" });
  if (status !== 200) fail(String(body.message ?? `operator answered ${status}`));
  const list = answer(jobListResponseSchema, body, "GET /api/v1/jobs").jobs;
  const found = list.find((each) => each.name === name && each.namespace === call.namespace);
  if (!found) fail(`no job ${call.namespace}/${name}`);
  console.log(jobDetailText(found, Date.now()));
}

async function fault(call: Call, args: { job?: string; kind?: string; rank?: string; source?: string }) {
  if (!args.job || !args.kind) fail(`fault needs a job and a kind\n${USAGE}`);
  const rank = args.rank === undefined ? undefined : Number(args.rank);
  if (rank !== undefined && !Number.isInteger(rank)) fail(`--rank expects a whole number, got ${args.rank}`);
  if (args.source !== undefined && args.kind !== "node") fail("--source goes with a node fault only");
  const { status, body } = await request(call, {
    path: `/api/v1/jobs/${call.namespace}/${args.job}/faults`,
    init: {
      method: "POST",
      body: JSON.stringify({ kind: args.kind, rank, source: args.source }),
      headers: { "content-type": "application/json" },
    },
  });
  if (status !== 202) fail(String(body.message ?? `operator answered ${status}`));
  console.log(`injected ${args.kind} into ${call.namespace}/${args.job}: ${JSON.stringify(body)}`);
}

async function remove(call: Call, job: string | undefined) {
  if (!job) fail(`delete needs a job\n${USAGE}`);
  const { status, body } = await request(call, {
    path: `/api/v1/jobs/${call.namespace}/${job}`,
    init: { method: "DELETE" },
  });
  if (status !== 202) fail(String(body.message ?? `operator answered ${status}`));
  console.log(`deleting ${call.namespace}/${job}`);
}

async function installOnCluster(opts: { kubeconfig?: string; dryRun: boolean }) {
  const { loadKubeConfig } = await import("@/server/cluster/kubernetes/config");
  const { install } = await import("@/server/cluster/kubernetes/install");
  const deployDir = new URL("../../deploy", import.meta.url).pathname;
  const plan = await install({
    kubeConfig: loadKubeConfig(opts.kubeconfig),
    deployDir,
    dryRun: opts.dryRun,
    log: (line) => console.log(line),
  });
  console.log(`${opts.dryRun ? "dry run: " : ""}${plan.objects.length} objects (${plan.mode})`);
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      namespace: { type: "string", short: "n" },
      operator: { type: "string" },
      token: { type: "string" },
      rank: { type: "string" },
      source: { type: "string" },
      kubeconfig: { type: "string" },
      "dry-run": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return;
  }
  const cwd = process.cwd();
  const call = {
    base: operatorUrl({ flag: values.operator, env: process.env, cwd }),
    namespace: values.namespace ?? "hyperpod-ns-llm-research",
    token:
      command === "install"
        ? null
        : await operatorToken({ flag: values.token, kubeconfig: values.kubeconfig, env: process.env, cwd }),
  };
  switch (command) {
    case "submit":
      return submit(call, rest[0]);
    case "jobs":
      return jobs(call);
    case "job":
      return job(call, rest[0]);
    case "fault":
      return fault(call, { job: rest[0], kind: rest[1], rank: values.rank, source: values.source });
    case "delete":
      return remove(call, rest[0]);
    case "install":
      return installOnCluster({ kubeconfig: values.kubeconfig, dryRun: values["dry-run"] ?? false });
    default:
      fail(`unknown command ${command}\n${USAGE}`);
  }
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
