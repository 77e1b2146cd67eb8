import { describe, expect, it } from "vitest";
import { fieldPath } from "@/server/api/trpc";
import {
  createShareTokenInputSchema,
  PAIRING_CODE_MESSAGE,
  pairShareTokenInputSchema,
} from "./share-tokens.schema";

const TEAM = "6f1d3c1e-8a4b-4c55-9a1e-2b3c4d5e6f70";
const valid = { label: "Lobby TV", views: ["jobs", "cluster"], allTeams: false, teamIds: [TEAM] };

function issues(input: unknown): Record<string, string> {
  const result = createShareTokenInputSchema.safeParse(input);
  if (result.success) return {};
  return Object.fromEntries(result.error.issues.map((issue) => [fieldPath(issue.path), issue.message]));
}

describe("create share token input", () => {
  it("takes a label, views and teams; pairing defaults to a link", () => {
    expect(createShareTokenInputSchema.parse({ ...valid, label: "  Lobby TV  " })).toEqual({
      ...valid,
      pairing: false,
    });
    expect(
      createShareTokenInputSchema.parse({ ...valid, allTeams: true, teamIds: [], pairing: true }),
    ).toEqual({ ...valid, allTeams: true, teamIds: [], pairing: true });
  });

  it("names each bad field", () => {
    expect(issues({ ...valid, label: "   " })).toEqual({
      label: "give the token a label, e.g. where the screen hangs",
    });
    expect(issues({ ...valid, label: "x".repeat(81) })).toEqual({ label: "at most 80 characters" });
    expect(issues({ ...valid, views: [] })).toEqual({ views: "choose at least one view" });
    expect(issues({ ...valid, views: ["jobs", "jobs"] })).toEqual({ views: "each view once" });
    expect(issues({ ...valid, views: ["admin"] })).toEqual({
      "views[0]": "expected one of cluster, jobs, reliability, incidents",
    });
    expect(issues({ ...valid, teamIds: [] })).toEqual({ teamIds: "choose at least one team, or all teams" });
    expect(issues({ ...valid, allTeams: true })).toEqual({ teamIds: "all teams are shared: choose no team" });
    expect(issues({ ...valid, teamIds: ["vision"] })).toEqual({ "teamIds[0]": "expected a team id" });
    expect(issues({ ...valid, teamIds: [TEAM, TEAM] })).toEqual({ teamIds: "each team once" });
  });
});

describe("pairing code input", () => {
  it("reads the code as typed", () => {
    expect(pairShareTokenInputSchema.parse({ code: "abcd efgh" })).toEqual({ code: "ABCDEFGH" });
  });

  it("refuses anything that is not a code, with one message", () => {
    for (const code of ["", "ABCD-EFG", "ABCD-EFG0", "x".repeat(33)]) {
      const result = pairShareTokenInputSchema.safeParse({ code });
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((issue) => issue.message)).toEqual([PAIRING_CODE_MESSAGE]);
    }
  });
});
