"use client";

import { useSearchParams } from "next/navigation";

/** "Sign in with <provider>": a plain link (a top-level navigation), so the provider's redirect back carries our cookie. */
export function SsoButton(props: { providerName: string }) {
  const next = useSearchParams().get("next");
  const href = `/api/auth/oidc/start${next ? `?${new URLSearchParams({ next })}` : ""}`;
  return (
    <p>
      <a className="button" href={href}>
        Sign in with {props.providerName}
      </a>
    </p>
  );
}
