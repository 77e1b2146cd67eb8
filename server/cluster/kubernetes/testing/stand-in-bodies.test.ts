import { describe, expect, it } from "vitest";
import { parseBody } from "@/server/agent/validation-detail";
import { startRequestSchema, stopRequestSchema } from "@/server/domain/agent-api/protocol";
import { createBodyReader } from "./stand-in-bodies";

const rankIps = Array.from({ length: 64 }, (_, rank) => ({ ip: `10.0.0.${rank}`, rank }));
const jobWide = {
  nnodes: 64,
  faultCount: 2,
  master_addr: "10.0.0.0",
  master_port: "23456",
  rankIps,
  progress: {},
};
/** The operator's bytes: `{"rank":N,` + the job-wide text (server/operator/reconcilers/steps.ts). */
const body = (rank: number | string, fields: object = jobWide) =>
  `{"rank":${rank},${JSON.stringify(fields).slice(1)}`;
const fullRead = (text: string) => parseBody(startRequestSchema, JSON.parse(text));

describe("stand-in agents' body reader", () => {
  it("reads each agent's body as a full read would, the job-wide part once", () => {
    const reader = createBodyReader(startRequestSchema);
    for (const rank of [0, 7, 63]) {
      const read = reader.read(body(rank));
      expect(read).toEqual({ kind: "read", parse: fullRead(body(rank)) });
    }
    expect(reader.sharedReads()).toBe(3);
    const other = { ...jobWide, faultCount: 3 };
    expect(reader.read(body(5, other))).toEqual({ kind: "read", parse: fullRead(body(5, other)) });
    const read = reader.read(body(5, other));
    expect(read.kind === "read" && read.parse.ok && read.parse.value.faultCount).toBe(3);
  });

  it("answers an invalid job-wide part with the full read's detail, naming the field", () => {
    const reader = createBodyReader(startRequestSchema);
    const bad = { ...jobWide, rankIps: [{ ip: "10.0.0.1", rank: -1 }] };
    const read = reader.read(body(4, bad));
    expect(read).toEqual({ kind: "read", parse: fullRead(body(4, bad)) });
    expect(read.kind === "read" && !read.parse.ok && read.parse.detail[0]?.loc).toEqual([
      "body",
      "rankIps",
      0,
      "rank",
    ]);
    expect(reader.sharedReads()).toBe(0);
  });

  it("reads other shapes in full: not JSON, a rank that is not a plain integer, an empty optional body", () => {
    const reader = createBodyReader(startRequestSchema);
    expect(reader.read(`${body(1).slice(0, -1)}`).kind).toBe("invalid");
    expect(reader.read(body("01")).kind).toBe("invalid");
    const negative = reader.read(body(-1));
    expect(negative.kind === "read" && negative.parse.ok).toBe(false);
    const reordered = JSON.stringify({ ...jobWide, rank: 9 });
    expect(reader.read(reordered)).toEqual({ kind: "read", parse: fullRead(reordered) });
    expect(reader.sharedReads()).toBe(0);
    const stop = createBodyReader(stopRequestSchema);
    expect(stop.read("", true)).toEqual({ kind: "read", parse: { ok: true, value: {} } });
    const missing = createBodyReader(startRequestSchema).read("");
    expect(missing.kind === "read" && missing.parse.ok).toBe(false);
  });
});
