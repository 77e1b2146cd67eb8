import { TeamNotifications } from "@/components/notifications/team-notifications";

export default async function TeamNotificationsPage({ params }: { params: Promise<{ team: string }> }) {
  const { team } = await params;
  return <TeamNotifications team={team} />;
}
