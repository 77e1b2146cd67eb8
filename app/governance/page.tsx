import { GovernanceOverview } from "@/components/governance/overview/governance-overview";

export default function GovernancePage() {
  return (
    <>
      <h1>Governance</h1>
      <GovernanceOverview />
    </>
  );
}
