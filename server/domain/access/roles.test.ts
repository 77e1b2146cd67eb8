import { describe, expect, it } from "vitest";
import {
  canActOnTeam,
  canInjectFault,
  canReadTeam,
  hasTeamRole,
  highestRole,
  isClusterAdmin,
  type Membership,
} from "./roles";

const engineerOfA: Membership = { teamId: "a", teamName: "a", role: "engineer" };
const viewerOfB: Membership = { teamId: "b", teamName: "b", role: "viewer" };
const adminOfB: Membership = { teamId: "b", teamName: "b", role: "cluster_admin" };

describe("roles", () => {
  it("grants a team role at or below the member's role, on that team only", () => {
    expect(hasTeamRole([engineerOfA], { teamId: "a", atLeast: "viewer" })).toBe(true);
    expect(hasTeamRole([engineerOfA], { teamId: "a", atLeast: "engineer" })).toBe(true);
    expect(hasTeamRole([engineerOfA], { teamId: "a", atLeast: "team_admin" })).toBe(false);
    expect(hasTeamRole([engineerOfA, viewerOfB], { teamId: "b", atLeast: "engineer" })).toBe(false);
    expect(hasTeamRole([], { teamId: "a", atLeast: "viewer" })).toBe(false);
  });

  it("gives a cluster admin every role on every team", () => {
    expect(isClusterAdmin([engineerOfA, adminOfB])).toBe(true);
    expect(hasTeamRole([adminOfB], { teamId: "a", atLeast: "team_admin" })).toBe(true);
    expect(isClusterAdmin([engineerOfA, viewerOfB])).toBe(false);
  });

  it("finds the highest role", () => {
    expect(highestRole([viewerOfB, engineerOfA])).toBe("engineer");
    expect(highestRole([])).toBeNull();
  });

  it("lets members of a team read its jobs, and nobody else but a cluster admin", () => {
    expect(canReadTeam([viewerOfB], "b")).toBe(true);
    expect(canReadTeam([engineerOfA], "b")).toBe(false);
    expect(canReadTeam([], "a")).toBe(false);
    expect(canReadTeam([adminOfB], "a")).toBe(true);
  });

  it("keeps a namespace of no team to cluster admins", () => {
    expect(canReadTeam([engineerOfA, viewerOfB], null)).toBe(false);
    expect(canActOnTeam([engineerOfA], null)).toBe(false);
    expect(canReadTeam([adminOfB], null)).toBe(true);
    expect(canActOnTeam([adminOfB], null)).toBe(true);
  });

  it("lets engineers and above act on their own team's jobs only", () => {
    expect(canActOnTeam([engineerOfA], "a")).toBe(true);
    expect(canActOnTeam([engineerOfA], "b")).toBe(false);
    expect(canActOnTeam([viewerOfB], "b")).toBe(false);
  });

  it("keeps faults that reach other teams (a node fault) to cluster admins", () => {
    expect(canInjectFault([engineerOfA], { teamId: "a", kind: "crash" })).toBe(true);
    expect(canInjectFault([engineerOfA], { teamId: "a", kind: "node" })).toBe(false);
    expect(canInjectFault([viewerOfB], { teamId: "b", kind: "crash" })).toBe(false);
    expect(canInjectFault([adminOfB], { teamId: "a", kind: "node" })).toBe(true);
  });
});
