import { describe, expect, it } from "vitest";
import { TV_VIEWS } from "@/server/domain/access/share";
import { allowedPlaylist, parsePlaylist, playlistHref } from "./playlist";

describe("parsePlaylist", () => {
  it("takes the views in order, dropping unknown names and repeats", () => {
    expect(parsePlaylist({ views: "jobs, cluster,bogus,jobs", every: "12" })).toEqual({
      views: ["jobs", "cluster"],
      everyS: 12,
    });
  });

  it("defaults to every view every 30 s", () => {
    expect(parsePlaylist({})).toEqual({ views: [...TV_VIEWS], everyS: 30 });
    expect(parsePlaylist({ views: "nope", every: "soon" })).toEqual({ views: [...TV_VIEWS], everyS: 30 });
  });

  it("bounds the interval to 5 s … 1 h", () => {
    expect(parsePlaylist({ every: "1" }).everyS).toBe(5);
    expect(parsePlaylist({ every: "999999" }).everyS).toBe(3600);
    expect(parsePlaylist({ views: ["cluster", "jobs"], every: ["7", "9"] })).toEqual({
      views: ["cluster", "jobs"],
      everyS: 7,
    });
  });

  it("round-trips through its link", () => {
    const playlist = { views: ["incidents" as const, "jobs" as const], everyS: 20 };
    const url = new URL(playlistHref(playlist), "http://tv");
    expect(parsePlaylist(Object.fromEntries(url.searchParams))).toEqual(playlist);
  });
});

describe("allowedPlaylist", () => {
  it("keeps the views the viewer may open, or none", () => {
    const playlist = { views: [...TV_VIEWS], everyS: 30 };
    expect(allowedPlaylist(playlist, ["jobs", "cluster"])?.views).toEqual(["cluster", "jobs"]);
    expect(allowedPlaylist({ views: ["reliability"], everyS: 30 }, ["jobs"])).toBeNull();
  });
});
