import { Suspense } from "react";
import { SignInForm } from "./_components/sign-in-form";

export default function SignInPage() {
  return (
    <section className="card narrow" aria-labelledby="sign-in-heading">
      <h1 id="sign-in-heading">Sign in</h1>
      <Suspense>
        <SignInForm />
      </Suspense>
      <p className="muted">
        The demo has admin@, lead@, engineer@, vision@ and viewer@rebound.local, password{" "}
        <code>rebound-demo</code>.
      </p>
    </section>
  );
}
