import { describe, expect, it } from "vitest";
import { namespaceFilter, scopeAllowsTeam, scopeKey, scopeOfGrant, scopeOfMemberships } from "./scope";

describe("TV scope", () => {
  it("a grant for all teams sees every team and unowned namespaces", () => {
    const scope = scopeOfGrant({ allTeams: true, teamIds: ["t1"] });
    expect(scope).toEqual({ all: true });
    expect(scopeAllowsTeam(scope, "t9")).toBe(true);
    expect(scopeAllowsTeam(scope, null)).toBe(true);
    expect(scopeKey(scope)).toBe("all");
  });

  it("a team grant sees its teams only, never an unowned namespace", () => {
    const scope = scopeOfGrant({ allTeams: false, teamIds: ["t2", "t1", "t2"] });
    expect(scopeKey(scope)).toBe("teams:t1,t2");
    expect(scopeAllowsTeam(scope, "t1")).toBe(true);
    expect(scopeAllowsTeam(scope, "t3")).toBe(false);
    expect(scopeAllowsTeam(scope, null)).toBe(false);
    const visible = namespaceFilter(
      scope,
      new Map([
        ["ns-a", "t1"],
        ["ns-b", "t3"],
      ]),
    );
    expect(["ns-a", "ns-b", "ns-free"].filter(visible)).toEqual(["ns-a"]);
  });

  it("a grant with no teams sees nothing", () => {
    const scope = scopeOfGrant({ allTeams: false, teamIds: [] });
    expect(scopeAllowsTeam(scope, "t1")).toBe(false);
    expect(scopeKey(scope)).toBe("teams:");
  });

  it("a user sees the teams of their memberships; a cluster admin sees all", () => {
    const member = scopeOfMemberships([
      { teamId: "t2", teamName: "b", role: "viewer" },
      { teamId: "t1", teamName: "a", role: "engineer" },
    ]);
    expect(member).toEqual({ all: false, teamIds: ["t1", "t2"] });
    const admin = scopeOfMemberships([{ teamId: "t1", teamName: "a", role: "cluster_admin" }]);
    expect(admin).toEqual({ all: true });
    // Two users with the same teams share one loop.
    expect(
      scopeKey(
        scopeOfMemberships([
          { teamId: "t1", teamName: "a", role: "viewer" },
          { teamId: "t2", teamName: "b", role: "team_admin" },
        ]),
      ),
    ).toBe(scopeKey(member));
  });
});
