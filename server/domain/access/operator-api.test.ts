import { describe, expect, it } from "vitest";
import {
  checksFor,
  describeCheck,
  faultGrants,
  OPERATOR_API_ACCESS,
  type OperatorApiRoute,
} from "./operator-api";

const JOBS = { group: "sagemaker.amazonaws.com", resource: "hyperpodpytorchjobs" };
const ref = { namespace: "team-a", name: "llm" };

describe("the operator API's rule table", () => {
  it("leaves only /healthz and /metrics public", () => {
    const open = Object.entries(OPERATOR_API_ACCESS).filter(([, access]) => access.public);
    expect(open.map(([route]) => route).sort()).toEqual(["healthz", "metrics"]);
    expect(checksFor("metrics")).toEqual([]);
  });

  it.each([
    ["jobs.get", "get"],
    ["jobs.delete", "delete"],
    ["jobs.action", "patch"],
    ["jobs.fault", "patch"],
    ["jobs.runPolicy", "patch"],
    ["jobs.shadowPolicy", "patch"],
    ["jobs.submit", "create"],
  ] as const)("%s needs %s on the job, in its namespace", (route, verb) => {
    expect(checksFor(route, ref)).toEqual([{ verb, ...JOBS, namespace: "team-a", name: "llm" }]);
  });

  it("lists jobs cluster-wide, nodes as a cluster-scoped resource", () => {
    expect(checksFor("jobs.list", ref)).toEqual([{ verb: "list", ...JOBS, namespace: "" }]);
    expect(checksFor("nodes.list")).toEqual([{ verb: "list", group: "", resource: "nodes", namespace: "" }]);
  });

  it("reads logs with get on the job and on pods/log in its namespace", () => {
    expect(checksFor("jobs.logs", ref)).toEqual([
      { verb: "get", ...JOBS, namespace: "team-a", name: "llm" },
      { verb: "get", group: "", resource: "pods", subresource: "log", namespace: "team-a" },
    ]);
  });

  it("audits exactly the routes that change something", () => {
    const audited = (Object.keys(OPERATOR_API_ACCESS) as OperatorApiRoute[]).filter((route) => {
      const access = OPERATOR_API_ACCESS[route];
      return !access.public && access.audit !== null;
    });
    expect(audited.sort()).toEqual([
      "jobs.action",
      "jobs.delete",
      "jobs.fault",
      "jobs.runPolicy",
      "jobs.shadowPolicy",
      "jobs.submit",
    ]);
  });

  it("asks cluster-admin rights for a node fault only", () => {
    expect(faultGrants("crash")).toEqual([]);
    expect(faultGrants("node")).toEqual([{ verb: "*", group: "*", resource: "*", namespace: "" }]);
  });

  it("describes a check for a 403 message", () => {
    const [action] = checksFor("jobs.action", ref);
    const [, podLog] = checksFor("jobs.logs", ref);
    const [node] = faultGrants("node");
    expect(action && describeCheck(action)).toBe(
      "patch hyperpodpytorchjobs.sagemaker.amazonaws.com in namespace team-a",
    );
    expect(podLog && describeCheck(podLog)).toBe("get pods/log in namespace team-a");
    expect(node && describeCheck(node)).toBe("* * cluster-wide");
  });
});
