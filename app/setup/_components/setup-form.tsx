"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { ADMIN_PASSWORD_MIN_LENGTH } from "@/lib/env-schema";
import { useTRPC } from "@/lib/trpc/client";

function Closed({ status }: { status: "invalid" | "done" | "missing" }) {
  if (status === "done") {
    return (
      <p>
        This console already has a cluster admin. <a href="/sign-in">Sign in</a>.
      </p>
    );
  }
  return (
    <p role="alert" className="form-error">
      {status === "missing"
        ? "Open the setup link from the console's log (/setup?token=…)."
        : "This setup link is unknown, used or expired. Restart the console and open the new link its log prints."}
    </p>
  );
}

export function SetupForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const status = useQuery({ ...trpc.setup.status.queryOptions({ token }), enabled: token.length > 0 });
  const create = useMutation(
    trpc.setup.createAdmin.mutationOptions({ onSuccess: () => router.push("/sign-in") }),
  );
  if (token.length === 0) return <Closed status="missing" />;
  if (status.isPending) return <p className="muted">Checking the link…</p>;
  if (status.isError) {
    return (
      <p role="alert" className="form-error">
        {status.error.message}
      </p>
    );
  }
  if (status.data !== "open") return <Closed status={status.data} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ token, email, name, password });
  };
  return (
    <form className="form" onSubmit={submit}>
      <label>
        Email
        <input
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </label>
      <label>
        Name
        <input
          type="text"
          autoComplete="name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <label>
        Password (at least {ADMIN_PASSWORD_MIN_LENGTH} characters)
        <input
          type="password"
          autoComplete="new-password"
          required
          minLength={ADMIN_PASSWORD_MIN_LENGTH}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      {create.isError ? (
        <p role="alert" className="form-error">
          {create.error.message}
        </p>
      ) : null}
      <button type="submit" className="button" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create the admin"}
      </button>
    </form>
  );
}
