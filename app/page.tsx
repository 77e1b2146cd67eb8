import { RequireSignIn } from "@/components/shell/require-sign-in";
import { TeamsOverview } from "@/components/teams/teams-overview";

export default function HomePage() {
  return (
    <>
      <h1>Overview</h1>
      <section className="card" aria-labelledby="teams-heading">
        <h2 id="teams-heading">Teams and quotas</h2>
        <RequireSignIn>
          <TeamsOverview />
        </RequireSignIn>
      </section>
    </>
  );
}
