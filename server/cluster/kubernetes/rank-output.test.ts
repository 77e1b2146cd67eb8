import { describe, expect, it } from "vitest";
import { POD_LOG_READ_BYTES, parseStampedLine, rankOutputFromPodLog } from "./rank-output";

const T0 = Date.parse("2026-03-01T10:00:00Z");
const stamp = (ms: number, nanos = "123456") =>
  `${new Date(ms).toISOString().replace(/\.\d{3}Z$/, "")}.${String(ms % 1000).padStart(3, "0")}${nanos}Z`;

/** A pod log read that answers `text` and remembers what it was asked. */
function podLog(text: string) {
  const asked: Array<{ sinceSeconds?: number; limitBytes: number }> = [];
  return {
    asked,
    read: async (params: { sinceSeconds?: number; limitBytes: number }) => {
      asked.push(params);
      return text;
    },
  };
}

describe("parseStampedLine", () => {
  it("reads the runtime's RFC 3339 time to the millisecond, and the line after it as it was", () => {
    expect(parseStampedLine("2026-03-01T10:00:01.250999999Z [default0]:step=1  loss=2")).toEqual({
      at: T0 + 1250,
      text: "[default0]:step=1  loss=2",
    });
    expect(parseStampedLine("2026-03-01T12:00:01+02:00 x")).toEqual({ at: T0 + 1000, text: "x" });
    expect(parseStampedLine("no time here")).toEqual({ at: null, text: "no time here" });
  });
});

describe("rankOutputFromPodLog", () => {
  it("keeps this local rank's lines since the attempt's start, each at its runtime time", async () => {
    const log = podLog(
      [
        `${stamp(T0 - 500)} [default0]:step=99 (the attempt before)`,
        `${stamp(T0 + 100)} [default0]:training started`,
        `${stamp(T0 + 150)} [default1]:training started`,
        `${stamp(T0 + 300)} agent: rendezvous done`,
        `${stamp(T0 + 320)} [default0]:step=1 loss=2.5`,
        "",
      ].join("\n"),
    );
    const output = await rankOutputFromPodLog({
      read: log.read,
      rank: { localRank: 0, since: T0 },
      now: () => T0 + 10_400,
    });
    expect(log.asked).toEqual([{ sinceSeconds: 12, limitBytes: POD_LOG_READ_BYTES }]);
    expect(output).toEqual({
      attempt: null,
      startedAt: T0,
      endedAt: null,
      readAt: T0 + 10_400,
      lines: [
        { text: "training started", at: T0 + 100 },
        { text: "step=1 loss=2.5", at: T0 + 320 },
      ],
      completeUntil: T0 + 10_400,
      overLimit: false,
      timing: "runtime",
    });
  });

  it("reads the whole log where the attempt's start is not known (console-only mode)", async () => {
    const log = podLog(`${stamp(T0)} [default3]:hello\n`);
    const output = await rankOutputFromPodLog({
      read: log.read,
      rank: { localRank: 3, since: null },
      now: () => T0,
    });
    expect(log.asked).toEqual([{ limitBytes: POD_LOG_READ_BYTES }]);
    expect(output).toMatchObject({ startedAt: null, lines: [{ text: "hello", at: T0 }] });
  });

  it("says the output went on past the limits, and from when it is not complete", async () => {
    const lines = Array.from(
      { length: 20_002 },
      (_, line) => `${stamp(T0 + line * 10)} [default0]:step=${line}`,
    );
    const output = await rankOutputFromPodLog({
      read: podLog(lines.join("\n")).read,
      rank: { localRank: 0, since: T0 },
      now: () => T0 + 600_000,
    });
    expect(output.lines).toHaveLength(20_000);
    expect(output).toMatchObject({ overLimit: true, completeUntil: T0 + 20_000 * 10 });
  });

  it("drops a torn last line where the read hit its byte limit, and ends what is complete at the last line read", async () => {
    const line = `${stamp(T0 + 5)} [default1]:${"x".repeat(1000)}`;
    const whole = `${stamp(T0)} [default0]:step=1\n${line}\n`;
    const text = `${whole}${"y".repeat(POD_LOG_READ_BYTES - whole.length)}`;
    const output = await rankOutputFromPodLog({
      read: podLog(text).read,
      rank: { localRank: 0, since: T0 },
      now: () => T0 + 9000,
    });
    expect(output).toMatchObject({
      lines: [{ text: "step=1", at: T0 }],
      overLimit: true,
      completeUntil: T0 + 5,
    });
  });
});
