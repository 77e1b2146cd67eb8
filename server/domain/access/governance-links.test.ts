import { describe, expect, it } from "vitest";
import { canReadAudit, canReadTeamGovernance } from "./governance";
import type { Membership } from "./roles";

const engineerOfA: Membership = { teamId: "a", teamName: "team-a", role: "engineer" };
const leadOfA: Membership = { teamId: "a", teamName: "team-a", role: "team_admin" };
const clusterAdmin: Membership = { teamId: "b", teamName: "team-b", role: "cluster_admin" };

/** The rules the governance links and the pages' guards both ask (issue 36: no link that answers 403). */
describe("governance links and guards", () => {
  it("shows the audit log to team admins and cluster admins only", () => {
    expect(canReadAudit([engineerOfA])).toBe(false);
    expect(canReadAudit([])).toBe(false);
    expect(canReadAudit([leadOfA])).toBe(true);
    expect(canReadAudit([clusterAdmin])).toBe(true);
  });

  it("opens a team's page, by name, to its members and cluster admins", () => {
    expect(canReadTeamGovernance([engineerOfA], "team-a")).toBe(true);
    expect(canReadTeamGovernance([engineerOfA], "team-b")).toBe(false);
    expect(canReadTeamGovernance([engineerOfA], "")).toBe(false);
    expect(canReadTeamGovernance([clusterAdmin], "team-a")).toBe(true);
    expect(canReadTeamGovernance([], "team-a")).toBe(false);
  });
});
