import { describe, expect, it } from "vitest";
import {
  assignableRoles,
  auditableTeams,
  canAddMembers,
  canEditMembers,
  canEditQuota,
  canEditScheduler,
  canReadGovernance,
  canRemoveMember,
  canSetRole,
} from "./governance";
import type { Membership } from "./roles";

const leadOfA: Membership = { teamId: "a", teamName: "team-a", role: "team_admin" };
const engineerOfA: Membership = { teamId: "a", teamName: "team-a", role: "engineer" };
const viewerOfA: Membership = { teamId: "a", teamName: "team-a", role: "viewer" };
const leadOfB: Membership = { teamId: "b", teamName: "team-b", role: "team_admin" };
const clusterAdmin: Membership = { teamId: "b", teamName: "team-b", role: "cluster_admin" };

describe("governance rules", () => {
  it("lets a team admin edit their own team's quota and members only", () => {
    expect(canEditQuota([leadOfA], "a")).toBe(true);
    expect(canEditMembers([leadOfA], "a")).toBe(true);
    expect(canEditQuota([leadOfB], "a")).toBe(false);
    expect(canEditMembers([leadOfB], "a")).toBe(false);
    expect(canEditScheduler([leadOfA, leadOfB])).toBe(false);
  });

  it("gives engineers and viewers nothing to change, but lets them read their team", () => {
    for (const member of [engineerOfA, viewerOfA]) {
      expect(canEditQuota([member], "a")).toBe(false);
      expect(canEditMembers([member], "a")).toBe(false);
      expect(canEditScheduler([member])).toBe(false);
      expect(assignableRoles([member], "a")).toEqual([]);
      expect(canReadGovernance([member], "a")).toBe(true);
      expect(canReadGovernance([member], "b")).toBe(false);
    }
  });

  it("lets a cluster admin edit every team and the scheduler", () => {
    expect(canEditQuota([clusterAdmin], "a")).toBe(true);
    expect(canEditMembers([clusterAdmin], "a")).toBe(true);
    expect(canEditScheduler([clusterAdmin])).toBe(true);
    expect(canReadGovernance([clusterAdmin], "a")).toBe(true);
  });

  it("never lets a team admin make or unmake a cluster admin", () => {
    expect(assignableRoles([leadOfA], "a")).toEqual(["viewer", "engineer", "team_admin"]);
    expect(canSetRole([leadOfA], { teamId: "a", from: "viewer", to: "team_admin" })).toBe(true);
    expect(canSetRole([leadOfA], { teamId: "a", from: "engineer", to: "cluster_admin" })).toBe(false);
    expect(canSetRole([leadOfA], { teamId: "a", from: "cluster_admin", to: "viewer" })).toBe(false);
    expect(canSetRole([leadOfA], { teamId: "b", from: "viewer", to: "engineer" })).toBe(false);
    expect(canSetRole([clusterAdmin], { teamId: "a", from: "viewer", to: "cluster_admin" })).toBe(true);
    expect(canSetRole([clusterAdmin], { teamId: "a", from: "cluster_admin", to: "viewer" })).toBe(true);
  });

  it("lets only a cluster admin add a non-member; team admins remove their own team's members, not a cluster admin", () => {
    expect(canSetRole([leadOfA], { teamId: "a", from: null, to: "engineer" })).toBe(false);
    expect(canSetRole([leadOfA], { teamId: "a", from: null, to: "viewer" })).toBe(false);
    expect(canSetRole([clusterAdmin], { teamId: "a", from: null, to: "engineer" })).toBe(true);
    expect([canAddMembers([leadOfA]), canAddMembers([clusterAdmin])]).toEqual([false, true]);
    expect(canRemoveMember([leadOfA], { teamId: "a", role: "viewer" })).toBe(true);
    expect(canRemoveMember([leadOfA], { teamId: "a", role: "team_admin" })).toBe(true);
    expect(canRemoveMember([leadOfA], { teamId: "a", role: "cluster_admin" })).toBe(false);
    expect(canRemoveMember([leadOfB], { teamId: "a", role: "viewer" })).toBe(false);
    expect(canRemoveMember([engineerOfA], { teamId: "a", role: "viewer" })).toBe(false);
    expect(canRemoveMember([clusterAdmin], { teamId: "a", role: "cluster_admin" })).toBe(true);
  });

  it("shows a cluster admin every team's audit, a team admin their teams', others none", () => {
    expect(auditableTeams([clusterAdmin])).toBeNull();
    expect(auditableTeams([leadOfA, leadOfB])).toEqual(["team-a", "team-b"]);
    expect(auditableTeams([engineerOfA, viewerOfA])).toEqual([]);
  });
});
