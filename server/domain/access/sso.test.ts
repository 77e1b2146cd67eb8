import { describe, expect, it } from "vitest";
import { canEditGroupMappings, type GroupRule, rolesFromGroups } from "./sso";

const ADMIN_TEAM = "team-platform";
const rules: GroupRule[] = [
  { group: "ml-vision", teamId: "team-vision", role: "engineer" },
  { group: "ml-vision-leads", teamId: "team-vision", role: "team_admin" },
  { group: "ml-nlp", teamId: "team-nlp", role: "viewer" },
  { group: "platform-admins", teamId: null, role: "cluster_admin" },
];

describe("rolesFromGroups", () => {
  it("gives each team the highest role the user's groups give there", () => {
    const roles = rolesFromGroups({
      rules,
      groups: ["ml-vision", "ml-vision-leads", "ml-nlp"],
      adminTeamId: ADMIN_TEAM,
    });
    expect(Object.fromEntries(roles)).toEqual({ "team-vision": "team_admin", "team-nlp": "viewer" });
  });

  it("gives cluster_admin on the admin team for a cluster-wide rule, over a team role there", () => {
    const withPlatform: GroupRule[] = [...rules, { group: "ml-vision", teamId: ADMIN_TEAM, role: "viewer" }];
    const roles = rolesFromGroups({
      rules: withPlatform,
      groups: ["platform-admins", "ml-vision"],
      adminTeamId: ADMIN_TEAM,
    });
    expect(Object.fromEntries(roles)).toEqual({ [ADMIN_TEAM]: "cluster_admin", "team-vision": "engineer" });
  });

  it("gives nothing for groups no rule names, and matches groups exactly", () => {
    expect(
      rolesFromGroups({ rules, groups: ["ML-Vision", "ml-vision ", "other"], adminTeamId: ADMIN_TEAM }).size,
    ).toBe(0);
    expect(rolesFromGroups({ rules, groups: [], adminTeamId: ADMIN_TEAM }).size).toBe(0);
  });

  it("never makes a cluster admin from a team rule, whatever role the row claims", () => {
    const odd: GroupRule[] = [{ group: "g", teamId: "team-x", role: "cluster_admin" }];
    expect(rolesFromGroups({ rules: odd, groups: ["g"], adminTeamId: ADMIN_TEAM }).size).toBe(0);
  });
});

describe("canEditGroupMappings", () => {
  it("is for cluster admins only", () => {
    expect(canEditGroupMappings([{ teamId: "t", teamName: "t", role: "cluster_admin" }])).toBe(true);
    expect(canEditGroupMappings([{ teamId: "t", teamName: "t", role: "team_admin" }])).toBe(false);
    expect(canEditGroupMappings([])).toBe(false);
  });
});
