import { describe, expect, it } from "vitest";
import { decideRecovery } from "./decide";
import { instanceIdOfNode } from "./faults";
import { nodesToAvoid } from "./placement";
import { at, cluster, crash, nodeFault, restart } from "./test-helpers";
import type { RestartPolicyInput } from "./types";
import { lifetimeCounters, repeatOffenders } from "./window";

const POLICY: RestartPolicyInput = { evalPeriodSeconds: 3600, numRestartBeforeFullJobRestart: 3 };
const NOW = at(120);
// In the window (after minute 60): b ×3, a ×2, c ×1 (+ the current fault on c); d only before the window.
const HISTORY = [
  restart(at(10), "PLR", ["d"]),
  restart(at(20), "PLR", ["d"]),
  restart(at(70), "PLR", ["a"]),
  restart(at(75), "PLR", ["b"]),
  restart(at(80), "JLR", ["a", "b"]),
  restart(at(90), "PLR", ["b"]),
  restart(at(100), "PLR", ["c"]),
];

describe("repeatOffenders", () => {
  it("ranks nodes with ≥ 2 faults in the window worst first, counting the current fault and across JLRs", () => {
    const offenders = repeatOffenders({
      policy: POLICY,
      history: HISTORY,
      current: { at: NOW, node: "c" },
      now: NOW,
    });
    // b: 3 faults; a and c: 2 each, c more recent (the current fault); d: outside the window.
    expect(offenders).toEqual(["b", "c", "a"]);
  });

  it("ignores a node that faulted once", () => {
    const offenders = repeatOffenders({ policy: POLICY, history: HISTORY, current: { at: NOW }, now: NOW });
    expect(offenders).toEqual(["b", "a"]);
  });
});

describe("JLR avoidNodes", () => {
  const jlr = (maxNumRepeatOffendersToAvoid?: number) =>
    decideRecovery({
      runPolicy: {
        restartPolicy: { ...POLICY, numRestartBeforeFullJobRestart: 1, maxNumRepeatOffendersToAvoid },
      },
      history: HISTORY,
      fault: crash(NOW, { node: "c" }),
      now: NOW,
      cluster: cluster({ healthyNodes: ["a", "b", "c", "d"] }),
    });

  it.each([
    { cap: 2, expected: ["b", "c"] },
    { cap: 1, expected: ["b"] },
    { cap: 5, expected: ["b", "c", "a"] },
    { cap: 0, expected: [] },
    { cap: undefined, expected: [] },
  ])("maxNumRepeatOffendersToAvoid $cap → $expected", ({ cap, expected }) => {
    expect(jlr(cap)).toMatchObject({ action: "JLR", avoidNodes: expected });
  });
});

describe("nodesToAvoid", () => {
  it("does not spend a repeat-offender slot on the unhealthy faulty node", () => {
    const avoid = nodesToAvoid({
      fault: nodeFault(NOW, "b"),
      healthyNodes: new Set(["a", "c"]),
      offenders: ["b", "c", "a"],
      maxOffenders: 1,
    });
    expect(avoid).toEqual(["b", "c"]);
  });
});

describe("lifetimeCounters", () => {
  it("takes the larger of the persisted status and the history", () => {
    const history = [restart(at(1), "PLR"), restart(at(2), "JLR"), restart(at(3), "JLR")];
    expect(lifetimeCounters({ restartCount: 9 }, history)).toEqual({ totalRestarts: 9, fullJobRestarts: 2 });
    const status = {
      restartCount: 1,
      restartStatus: { currentEvalPeriod: 0, fullJobRestartCount: 4, restartCount: 0 },
    };
    expect(lifetimeCounters(status, history)).toEqual({ totalRestarts: 3, fullJobRestarts: 4 });
  });
});

describe("instanceIdOfNode", () => {
  it.each([
    { node: "hyperpod-i-076a8fd1fb47273d2", expected: "i-076a8fd1fb47273d2" },
    { node: "ip-10-1-2-3.ec2.internal", expected: "ip-10-1-2-3.ec2.internal" },
    { node: "local-node-2", expected: "local-node-2" },
  ])("$node → $expected", ({ node, expected }) => {
    expect(instanceIdOfNode(node)).toBe(expected);
  });
});
