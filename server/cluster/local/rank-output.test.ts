import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRankOutput } from "./rank-output";

const root = mkdtempSync(path.join(tmpdir(), "rebound-rank-output-"));
const podsDir = path.join(root, "pods");
const ref = { namespace: "team-a", name: "train" };
const uid = "0f0e";
const T0 = Date.parse("2026-03-01T10:00:00Z");
const NOW = T0 + 60_000;

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A pod's attempt folder for a local rank, with the files given (name → text). */
function rankFiles(input: {
  pod: string;
  run?: string;
  attempt: number;
  localRank?: number;
  files: Record<string, string>;
}) {
  const dir = path.join(
    podsDir,
    ref.namespace,
    ref.name,
    uid,
    input.pod,
    "logs",
    input.run ?? "none_host-1",
    `attempt_${input.attempt}`,
    String(input.localRank ?? 0),
  );
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(input.files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const read = (pod: string, localRank = 0) =>
  readRankOutput({ podsDir, ref, pod, uid, localRank, now: () => NOW });

describe("readRankOutput (local back end)", () => {
  it("puts stdout and stderr lines back in the order they arrived, each at its time, from the current attempt", async () => {
    rankFiles({
      pod: "train-workers-0",
      attempt: 0,
      files: { "stdout.log": "old attempt\n", "arrivals.log": `s${T0 - 9000} 0 0\no${T0 - 8000}\n` },
    });
    rankFiles({
      pod: "train-workers-0",
      attempt: 1,
      files: {
        "stdout.log": "training started\nstep=1 loss=2.5\r\nstep=2 loss=2.4\n",
        "stderr.log": "warning: slow disk\n",
        "arrivals.log": `s${T0} 0 0\no${T0 + 1500}\ne${T0 + 1600}\no${T0 + 1700}\no${T0 + 1900}\n`,
      },
    });
    expect(await read("train-workers-0")).toEqual({
      attempt: 1,
      startedAt: T0,
      endedAt: null,
      readAt: NOW,
      lines: [
        { text: "training started", at: T0 + 1500 },
        { text: "warning: slow disk", at: T0 + 1600 },
        { text: "step=1 loss=2.5", at: T0 + 1700 },
        { text: "step=2 loss=2.4", at: T0 + 1900 },
      ],
      completeUntil: NOW,
      overLimit: false,
      timing: "arrivals",
    });
  });

  it("reads from the rules' last start (an in-process restart), and a line not yet in its file ends what is complete", async () => {
    rankFiles({
      pod: "train-workers-1",
      attempt: 0,
      localRank: 2,
      files: {
        "stdout.log": "a\nb\nc\nd",
        "stderr.log": "",
        "arrivals.log": `s${T0} 0 0\no${T0 + 1}\no${T0 + 2}\ns${T0 + 10} 2 0\no${T0 + 11}\no${T0 + 12}\nx${T0 + 13}\n`,
      },
    });
    // "d" has no line end yet: the agent has not read it as a line, so what is complete ends at its arrival.
    expect(await read("train-workers-1", 2)).toMatchObject({
      startedAt: T0 + 10,
      endedAt: T0 + 13,
      lines: [{ text: "c", at: T0 + 11 }],
      completeUntil: T0 + 12,
      overLimit: false,
    });
  });

  it("sends at most 20,000 lines and says where the output went on", async () => {
    const count = 20_005;
    const stdout = Array.from({ length: count }, (_, line) => `step=${line}`).join("\n");
    // 2 ms apart: all of them arrived before the read (NOW).
    const arrivals = Array.from({ length: count }, (_, line) => `o${T0 + line * 2}`).join("\n");
    rankFiles({
      pod: "train-workers-2",
      attempt: 3,
      files: { "stdout.log": `${stdout}\n`, "arrivals.log": `s${T0} 0 0\n${arrivals}\n` },
    });
    const output = await read("train-workers-2");
    expect(output.lines).toHaveLength(20_000);
    expect(output.lines.at(-1)).toEqual({ text: "step=19999", at: T0 + 19_999 * 2 });
    expect(output).toMatchObject({ overLimit: true, completeUntil: T0 + 20_000 * 2 });
  });

  it("leaves out a line that arrived after the read began: no line is later than readAt", async () => {
    rankFiles({
      pod: "train-workers-4",
      attempt: 0,
      files: { "stdout.log": "a\nb\n", "arrivals.log": `s${T0} 0 0\no${T0 + 10}\no${NOW + 5}\n` },
    });
    const output = await read("train-workers-4");
    expect(output.lines).toEqual([{ text: "a", at: T0 + 10 }]);
    expect(output.readAt).toBe(NOW);
  });

  it("reads stdout.log undated from an agent that records no arrival times (HyperPod's hyperpodrun)", async () => {
    const dir = rankFiles({
      pod: "train-workers-3",
      run: "job-1_abc",
      attempt: 0,
      files: { "stdout.log": "one\ntwo\n" },
    });
    const output = await read("train-workers-3");
    expect(output).toMatchObject({
      attempt: 0,
      lines: [
        { text: "one", at: null },
        { text: "two", at: null },
      ],
      timing: "none",
      completeUntil: NOW,
    });
    expect(output.startedAt).toBeGreaterThan(0);
    expect(dir).toContain("job-1_abc");
  });

  it("reads the newest agent run of the pod (an agent restarted in the pod writes a new run folder)", async () => {
    const old = rankFiles({
      pod: "train-workers-4",
      run: "none_host-1",
      attempt: 7,
      files: { "stdout.log": "old\n" },
    });
    rankFiles({ pod: "train-workers-4", run: "none_host-2", attempt: 0, files: { "stdout.log": "new\n" } });
    const past = new Date(T0 - 3_600_000);
    utimesSync(path.dirname(path.dirname(old)), past, past);
    expect((await read("train-workers-4")).lines).toEqual([{ text: "new", at: null }]);
  });

  it("is empty for a pod or rank with no output yet", async () => {
    expect(await read("train-workers-9")).toMatchObject({ lines: [], startedAt: null, timing: "none" });
    expect(await read("train-workers-0", 5)).toMatchObject({ attempt: 1, lines: [], timing: "none" });
  });

  it("refuses a rank file that is a link, and a linked attempt folder is not read", async () => {
    const secret = path.join(root, "elsewhere");
    mkdirSync(path.join(secret, "0"), { recursive: true });
    writeFileSync(path.join(secret, "0", "stdout.log"), "SECRET\n");
    const dir = rankFiles({ pod: "train-workers-5", attempt: 0, files: {} });
    symlinkSync(path.join(secret, "0", "stdout.log"), path.join(dir, "stdout.log"));
    await expect(read("train-workers-5")).rejects.toMatchObject({ code: "FORBIDDEN" });
    const runDir = path.dirname(path.dirname(rankFiles({ pod: "train-workers-6", attempt: 0, files: {} })));
    symlinkSync(secret, path.join(runDir, "attempt_9"));
    const output = await read("train-workers-6");
    expect(output.lines).toEqual([]);
    expect(JSON.stringify(output)).not.toContain("SECRET");
  });

  it.each([
    ["pod", { pod: "../../elsewhere", localRank: 0 }],
    ["pod", { pod: "Train-workers-0", localRank: 0 }],
    ["localRank", { pod: "train-workers-0", localRank: -1 }],
    ["localRank", { pod: "train-workers-0", localRank: 1.5 }],
  ])("refuses a bad %s before building a path", async (field, input) => {
    await expect(read(input.pod, input.localRank)).rejects.toMatchObject({
      code: "INVALID",
      message: expect.stringMatching(new RegExp(`^${field}: `)),
    });
  });
});
