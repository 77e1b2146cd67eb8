import { SetupForm } from "./_components/setup-form";

/**
 * The first cluster admin, from the one-time link the console's log prints at start when no admin was
 * supplied (docs/security.md). The link's token is checked on the server; this page only carries it.
 */
export default async function SetupPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await searchParams;
  return (
    <section className="card narrow" aria-labelledby="setup-heading">
      <h1 id="setup-heading">Create the first admin</h1>
      <SetupForm token={typeof token === "string" ? token : ""} />
    </section>
  );
}
