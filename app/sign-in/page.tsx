import { cookies } from "next/headers";
import { Suspense } from "react";
import { localPasswordsEnabled, oidcSettings } from "@/server/services/auth/oidc/from-env";
import { SSO_ERROR_COOKIE } from "@/server/services/auth/oidc/state-cookie";
import { demoUsersSeeded } from "@/server/services/setup/queries";
import { getDb } from "@/server/services/wiring";
import { SignInForm } from "./_components/sign-in-form";
import { SsoButton } from "./_components/sso-button";

export default async function SignInPage() {
  const sso = oidcSettings();
  const passwords = localPasswordsEnabled();
  const ssoError = (await cookies()).get(SSO_ERROR_COOKIE)?.value;
  // The demo's users and password are named only where they exist (never in production: docs/security.md).
  const demo = passwords && (await demoUsersSeeded(getDb()));
  return (
    <section className="card narrow" aria-labelledby="sign-in-heading">
      <h1 id="sign-in-heading">Sign in</h1>
      {ssoError ? (
        <p role="alert" className="form-error">
          Single sign-on did not sign you in: {ssoError}
        </p>
      ) : null}
      {sso ? (
        <Suspense>
          <SsoButton providerName={sso.name} />
        </Suspense>
      ) : null}
      {passwords ? (
        <Suspense>
          <SignInForm />
        </Suspense>
      ) : null}
      {!sso && !passwords ? (
        <p role="alert" className="form-error">
          No way to sign in is configured: set REBOUND_OIDC_ISSUER, or REBOUND_LOCAL_PASSWORDS=on.
        </p>
      ) : null}
      {demo ? (
        <p className="muted">
          The demo has admin@, lead@, engineer@, vision@ and viewer@rebound.local, password{" "}
          <code>rebound-demo</code>.
        </p>
      ) : null}
    </section>
  );
}
