import { describe, expect, it } from "vitest";
import { tvStreamState } from "./stream-state";

describe("tvStreamState", () => {
  it("is live on an open stream", () => {
    expect(tvStreamState({ status: "pending", error: null, hasFrame: true })).toEqual({ kind: "live" });
  });

  it("keeps the last frame while the stream reconnects or after a passing error", () => {
    expect(tvStreamState({ status: "connecting", error: null, hasFrame: true })).toEqual({
      kind: "reconnecting",
    });
    expect(
      tvStreamState({
        status: "error",
        error: { code: "INTERNAL_SERVER_ERROR", message: "boom" },
        hasFrame: true,
      }),
    ).toEqual({ kind: "reconnecting" });
    expect(tvStreamState({ status: "connecting", error: null, hasFrame: false })).toEqual({
      kind: "connecting",
    });
  });

  it("ends for good on a revoked token or a view outside it, with the server's reason", () => {
    expect(
      tvStreamState({
        status: "error",
        error: { code: "UNAUTHORIZED", message: "this TV's share token was revoked" },
        hasFrame: true,
      }),
    ).toEqual({ kind: "ended", code: "UNAUTHORIZED", message: "this TV's share token was revoked" });
    expect(
      tvStreamState({
        status: "error",
        error: { code: "FORBIDDEN", message: "this token does not include the jobs view" },
        hasFrame: false,
      }),
    ).toMatchObject({ kind: "ended", code: "FORBIDDEN" });
  });
});
