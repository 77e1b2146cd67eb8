import { describe, expect, it } from "vitest";
import { initialLive, type LiveValue, liveStatus, reduceLive } from "./live-state";

type Patch = { add: number };
const add = (value: number, patch: Patch) => value + patch.add;

describe("a live view's value", () => {
  it("takes a snapshot whole and applies patches to it", () => {
    let state = initialLive<number>();
    state = reduceLive(state, { kind: "snapshot", value: 10 }, add);
    state = reduceLive(state, { kind: "patch", patch: { add: 5 } }, add);
    expect(state).toEqual({ value: 15, unavailable: null });
  });

  it("keeps the last good value through an outage, and leaves it on the next snapshot", () => {
    let state: LiveValue<number> = { value: 7, unavailable: null };
    state = reduceLive(state, { kind: "unavailable", message: "operator unreachable" }, add);
    expect(state).toEqual({ value: 7, unavailable: "operator unreachable" });
    state = reduceLive(state, { kind: "snapshot", value: 9 }, add);
    expect(state).toEqual({ value: 9, unavailable: null });
  });

  it("ignores a patch with nothing to apply it to", () => {
    expect(reduceLive(initialLive<number>(), { kind: "patch", patch: { add: 1 } }, add)).toEqual(
      initialLive(),
    );
  });
});

describe("a live view's status", () => {
  const none: LiveValue<number> = { value: null, unavailable: null };
  const held: LiveValue<number> = { value: 1, unavailable: null };
  const down: LiveValue<number> = { value: 1, unavailable: "down" };
  it.each([
    ["connecting", none, "connecting"],
    ["pending", none, "connecting"],
    ["pending", held, "live"],
    ["pending", down, "unavailable"],
    ["pending", { value: null, unavailable: "down" }, "unavailable"],
    ["connecting", held, "reconnecting"],
    ["idle", held, "reconnecting"],
    ["error", held, "unavailable"],
    ["error", none, "unavailable"],
  ] as const)("stream %s with %o → %s", (stream, state, shown) => {
    expect(liveStatus(stream, state)).toBe(shown);
  });
});
