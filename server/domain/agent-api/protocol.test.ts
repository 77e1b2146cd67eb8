import { describe, expect, it } from "vitest";
import { parseBody } from "@/server/agent/validation-detail";
import {
  agentStatusSchema,
  decodeJsonFloat,
  encodeJsonFloat,
  startRequestSchema,
  stopRequestSchema,
  updateRequestSchema,
} from "./protocol";

const START = { rank: 1, nnodes: 2, faultCount: 0, master_addr: "10.0.0.1", master_port: 29500 };

describe("startRequestSchema", () => {
  it("parses HyperPod's documented example, master_port as a numeric string", () => {
    const parsed = startRequestSchema.parse({
      rank: 0,
      nnodes: 2,
      faultCount: 33,
      master_addr: "192.168.111.1",
      master_port: "23456",
      log_monitoring_configuration: [
        { name: "Hang", logPattern: ".*step.*", expectedRecurringFrequencyInSeconds: 10 },
      ],
      ipVersion: "2025-01-10T12:00:00Z",
      rankIps: [
        { ip: "192.168.111.1", rank: 0 },
        { ip: "192.168.111.2", rank: 1 },
      ],
      worker_data: [{ rank: 0, group_rank: 0, local_rank: 1, data: { foo: "bar" } }],
      spare: 0,
      progress: {},
      somethingNew: true,
    });
    expect(parsed).toMatchObject({ master_port: 23456, spare: false, faultCount: 33, progress: {} });
    expect(parsed).not.toHaveProperty("somethingNew");
  });

  it.each([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ["1", true],
    ["false", false],
  ])("reads spare %j as %j", (spare, expected) => {
    expect(startRequestSchema.parse({ ...START, spare }).spare).toBe(expected);
  });

  it("accepts null for optional fields, as pydantic does", () => {
    const parsed = startRequestSchema.parse({
      ...START,
      log_monitoring_configuration: null,
      ipVersion: null,
    });
    expect(parsed.log_monitoring_configuration).toBeNull();
  });

  it.each([
    [{ master_addr: "" }, ["body", "master_addr"], "Empty master_addr received from operator"],
    [{ master_addr: "  " }, ["body", "master_addr"], "Empty master_addr received from operator"],
    [
      { master_port: "abc" },
      ["body", "master_port"],
      "expected a port number (an integer or a numeric string)",
    ],
    [{ master_port: 0 }, ["body", "master_port"], "expected a port from 1 to 65535"],
    [{ rank: -1 }, ["body", "rank"], "expected an integer >= 0"],
    [{ rank: 1.5 }, ["body", "rank"], "expected an integer"],
    [{ nnodes: 0 }, ["body", "nnodes"], "expected an integer >= 1"],
    [{ spare: "maybe" }, ["body", "spare"], "expected true, false, 0 or 1"],
  ])("refuses %j at %j", (patch, loc, msg) => {
    const parsed = parseBody(startRequestSchema, { ...START, ...patch });
    expect(parsed).toEqual({ ok: false, detail: [expect.objectContaining({ loc, msg })] });
  });

  it("reports a missing field like FastAPI", () => {
    const { faultCount: _, ...rest } = START;
    expect(parseBody(startRequestSchema, rest)).toEqual({
      ok: false,
      detail: [{ type: "missing", loc: ["body", "faultCount"], msg: "Field required" }],
    });
    expect(parseBody(startRequestSchema, undefined)).toEqual({
      ok: false,
      detail: [{ type: "missing", loc: ["body"], msg: "Field required" }],
    });
  });

  it("validates log rules with the rule schema, naming the rule field", () => {
    const parsed = parseBody(startRequestSchema, {
      ...START,
      log_monitoring_configuration: [{ name: "Bad", logPattern: "a(?=b)" }],
    });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.detail[0]?.loc).toEqual(["body", "log_monitoring_configuration", 0, "logPattern"]);
      expect(parsed.detail[0]?.msg).toContain("lookahead");
    }
  });

  it("accepts what hyperpodrun accepts: duplicate names, unknown keys, numeric strings, a lone threshold", () => {
    const rules = [
      { name: "Dup", logPattern: ".*", foo: 1 },
      {
        name: "Dup",
        logPattern: ".*(\\d+)",
        metricThreshold: "5",
        expectedRecurringFrequencyInSeconds: "10",
      },
    ];
    const parsed = parseBody(startRequestSchema, { ...START, log_monitoring_configuration: rules });
    expect(parsed.ok && parsed.value.log_monitoring_configuration).toEqual([
      { name: "Dup", logPattern: ".*", foo: 1 },
      { name: "Dup", logPattern: ".*(\\d+)", metricThreshold: 5, expectedRecurringFrequencyInSeconds: 10 },
    ]);
  });
});

describe("updateRequestSchema and stopRequestSchema", () => {
  it("drops progress from /update", () => {
    expect(updateRequestSchema.parse({ ...START, progress: { a: 1 } })).not.toHaveProperty("progress");
  });

  it("parses /stop bodies", () => {
    expect(stopRequestSchema.parse({})).toEqual({});
    expect(stopRequestSchema.parse({ restart_mode: "ipr", is_graceful: true, timeout: 30 })).toEqual({
      restart_mode: "ipr",
      is_graceful: true,
      timeout: 30,
    });
    expect(stopRequestSchema.safeParse({ is_graceful: "yes" }).success).toBe(false);
  });
});

describe("agentStatusSchema", () => {
  it("parses the unmodified HyperPod agent's answer, keeping unknown keys", () => {
    const status = {
      status: "faulted",
      transitions: { READY: "2024-11-20T23:37:17.855065+00:00", FAULTED: "2024-11-20T23:40:00.000000+00:00" },
      reason: "LogHang_JobHangingDetection",
      message: "The job is hanging …",
      restartMode: "in_process_restart",
      agent_version: "1.1.0",
      assigned_rank: "0",
      spare: "False",
      priority: "True",
      rank_labels: { "0": "x" },
      future_key: 1,
    };
    expect(agentStatusSchema.parse(status)).toEqual(status);
  });

  it("refuses an unknown status", () => {
    expect(agentStatusSchema.safeParse({ status: "READY" }).success).toBe(false);
  });
});

describe("JSON floats", () => {
  it.each([
    [1.5, 1.5],
    [Number.NaN, "nan"],
    [Number.POSITIVE_INFINITY, "inf"],
    [Number.NEGATIVE_INFINITY, "-inf"],
  ])("round-trips %s", (value, encoded) => {
    expect(encodeJsonFloat(value)).toBe(encoded);
    expect(decodeJsonFloat(encodeJsonFloat(value))).toBe(value);
  });
});
