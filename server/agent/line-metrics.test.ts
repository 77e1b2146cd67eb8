import { describe, expect, it } from "vitest";
import { parseLineMetrics } from "./line-metrics";

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
