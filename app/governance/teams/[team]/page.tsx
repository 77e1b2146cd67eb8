import { TeamGovernance } from "@/components/governance/team-governance";

export default async function TeamGovernancePage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  return <TeamGovernance team={team} />;
}
