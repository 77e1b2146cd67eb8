import { describe, expect, it } from "vitest";
import { canApplyPolicy, canEditPolicies, canReadPolicies, policyTeams } from "./policies";
import type { Membership, Role } from "./roles";

const LLM = "team-llm";
const VISION = "team-vision";
const member = (role: Role, teamId = LLM): Membership[] => [
  { teamId, teamName: teamId === LLM ? "llm-research" : "vision", role },
];

describe("policy access", () => {
  it("lets a team's members read its policies and no other team's", () => {
    for (const role of ["viewer", "engineer", "team_admin"] as const) {
      expect(canReadPolicies(member(role), LLM)).toBe(true);
      expect(canReadPolicies(member(role), VISION)).toBe(false);
    }
    expect(canReadPolicies(member("cluster_admin", VISION), LLM)).toBe(true);
    expect(canReadPolicies([], LLM)).toBe(false);
  });

  it("lets engineers, team admins and cluster admins write, never a viewer or another team", () => {
    expect(canEditPolicies(member("viewer"), LLM)).toBe(false);
    expect(canEditPolicies(member("engineer"), LLM)).toBe(true);
    expect(canEditPolicies(member("team_admin"), LLM)).toBe(true);
    expect(canEditPolicies(member("engineer", VISION), LLM)).toBe(false);
    expect(canEditPolicies(member("cluster_admin", VISION), LLM)).toBe(true);
  });

  it("applies only as one who acts on the job's team and reads the policy's team", () => {
    const same = { jobTeamId: LLM, policyTeamId: LLM };
    expect(canApplyPolicy(member("viewer"), same)).toBe(false);
    expect(canApplyPolicy(member("engineer"), same)).toBe(true);
    expect(canApplyPolicy(member("engineer", VISION), same)).toBe(false);
    // Another team's policy onto one's own job: only if one is a member there too.
    expect(canApplyPolicy(member("engineer"), { jobTeamId: LLM, policyTeamId: VISION })).toBe(false);
    const both = [...member("engineer"), ...member("viewer", VISION)];
    expect(canApplyPolicy(both, { jobTeamId: LLM, policyTeamId: VISION })).toBe(true);
    // A job in a namespace of no team: cluster admins only.
    expect(canApplyPolicy(member("team_admin"), { jobTeamId: null, policyTeamId: LLM })).toBe(false);
    expect(canApplyPolicy(member("cluster_admin"), { jobTeamId: null, policyTeamId: LLM })).toBe(true);
  });

  it("lists a member's teams, and every team for a cluster admin", () => {
    expect(policyTeams([...member("viewer"), ...member("engineer", VISION)])).toEqual([LLM, VISION]);
    expect(policyTeams(member("cluster_admin"))).toBeNull();
    expect(policyTeams([])).toEqual([]);
  });
});
