import { describe, expect, it } from "vitest";
import { type CorpusLine, loadCorpus } from "../domain/policy/log-corpus/corpus";
import { type LineMetrics, parseLineMetrics } from "./line-metrics";

describe("parseLineMetrics", () => {
  it("reads the demo trainer's line", () => {
    expect(parseLineMetrics("step=12 loss=2.4701 throughput=1227.6 samples/s rank=3")).toEqual({
      step: 12,
      loss: 2.4701,
      throughput: 1227.6,
    });
  });

  it("reads nan and inf losses, and comma/semicolon separated tokens", () => {
    expect(parseLineMetrics("step=3, loss=nan; throughput=1e3")).toEqual({
      step: 3,
      loss: Number.NaN,
      throughput: 1000,
    });
    expect(parseLineMetrics("loss=inf")).toEqual({ loss: Number.POSITIVE_INFINITY });
    expect(parseLineMetrics("loss=-Infinity")).toEqual({ loss: Number.NEGATIVE_INFINITY });
  });

  it("ignores other keys, malformed values and words that only end in a key", () => {
    expect(parseLineMetrics("substep=4 step=x loss= train_loss=1 throughput=fast")).toEqual({});
    expect(parseLineMetrics("step=1.5 step=-2")).toEqual({});
    expect(parseLineMetrics("no tokens here")).toEqual({});
  });

  it("keeps the last value when a key repeats", () => {
    expect(parseLineMetrics("step=1 step=2")).toEqual({ step: 2 });
  });
});

type Key = keyof LineMetrics;
const KEYS: readonly Key[] = ["step", "loss", "throughput"];

function lossOf(loss: CorpusLine["loss"]): number | undefined {
  if (loss === undefined || typeof loss === "number") return loss;
  return { nan: Number.NaN, inf: Number.POSITIVE_INFINITY, "-inf": Number.NEGATIVE_INFINITY }[loss];
}

/** What a person read off the line. */
const expectedOf = (line: CorpusLine): LineMetrics => ({
  ...(line.step === undefined ? {} : { step: line.step }),
  ...(lossOf(line.loss) === undefined ? {} : { loss: lossOf(line.loss) }),
  ...(line.tokensPerSecond === undefined ? {} : { throughput: line.tokensPerSecond }),
});

const same = (got: number, want: number) =>
  Object.is(got, want) || Math.abs(got - want) <= 1e-9 * Math.abs(want);

type Tally = { right: Record<Key, number>; labelled: Record<Key, number>; wrong: string[] };

/** One value read against the one a person read: right, wrong (another value) or not read. */
function count(t: Tally, input: { key: Key; got: number | undefined; want: number; text: string }): void {
  const { key, got, want } = input;
  t.labelled[key] += 1;
  if (got === undefined) return;
  if (same(got, want)) t.right[key] += 1;
  else t.wrong.push(`${key} ${got} (want ${want}): ${input.text.slice(0, 160)}`);
}

function tally(lines: readonly CorpusLine[]): Tally {
  const t: Tally = {
    right: { step: 0, loss: 0, throughput: 0 },
    labelled: { step: 0, loss: 0, throughput: 0 },
    wrong: [],
  };
  for (const line of lines) {
    const read = parseLineMetrics(line.text);
    const want = expectedOf(line);
    for (const key of KEYS) {
      const expected = want[key];
      if (expected !== undefined) count(t, { key, got: read[key], want: expected, text: line.text });
    }
  }
  return t;
}

describe("parseLineMetrics on real frameworks' progress lines (the log corpus)", () => {
  const lines = loadCorpus().lines.filter((line) => line.kind === "progress" || line.progress === true);

  it("reads at least 85 % of the steps, losses and tokens/s a person read off the lines, and almost never a wrong one", () => {
    const { right, labelled, wrong } = tally(lines);
    console.log(
      `[line metrics] on ${lines.length} progress lines, read right of labelled: ${JSON.stringify(right)} of ${JSON.stringify(labelled)}; wrong: ${wrong.length}\n${wrong.join("\n")}`,
    );
    for (const key of KEYS) expect(right[key] / labelled[key], key).toBeGreaterThanOrEqual(0.85);
    expect(wrong.length).toBeLessThanOrEqual(Math.ceil(lines.length * 0.05));
  });
});
