import { Suspense } from "react";
import { demoUsersSeeded } from "@/server/services/setup/queries";
import { getDb } from "@/server/services/wiring";
import { SignInForm } from "./_components/sign-in-form";

export default async function SignInPage() {
  // The demo's users and password are named only where they exist (never in production: docs/security.md).
  const demo = await demoUsersSeeded(getDb());
  return (
    <section className="card narrow" aria-labelledby="sign-in-heading">
      <h1 id="sign-in-heading">Sign in</h1>
      <Suspense>
        <SignInForm />
      </Suspense>
      {demo ? (
        <p className="muted">
          The demo has admin@, lead@, engineer@, vision@ and viewer@rebound.local, password{" "}
          <code>rebound-demo</code>.
        </p>
      ) : null}
    </section>
  );
}
