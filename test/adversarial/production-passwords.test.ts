import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { adminCredentials } from "@/scripts/lib/admin-credentials";
import { resolveSeedMode } from "@/server/db/seed";

/**
 * Issue 16, item 4, the parts that need no database: docker-compose published PostgreSQL on every
 * interface with the password `rebound`; the seed choice let a production start create the demo users;
 * the console Deployment gives the first admin's password only from an optional Secret.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");

type EnvMap = Record<string, string>;
type Service = {
  ports?: unknown[];
  expose?: unknown[];
  network_mode?: string;
  init?: boolean;
  environment?: EnvMap;
};
const compose = parse(readFileSync(path.join(ROOT, "docker-compose.yml"), "utf8")) as {
  services: Record<string, Service>;
};
const REQUIRED_PASSWORD = /^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/;

describe("docker-compose.yml", () => {
  const postgres = compose.services.postgres;
  const console_ = compose.services.console;

  it("publishes no PostgreSQL port and keeps it off the host's network", () => {
    expect(postgres?.ports).toBeUndefined();
    expect(postgres?.network_mode).toBeUndefined();
  });

  it("requires POSTGRES_PASSWORD from the environment: no password is written in the file", () => {
    expect(postgres?.environment?.POSTGRES_PASSWORD).toMatch(REQUIRED_PASSWORD);
    const url = console_?.environment?.DATABASE_URL ?? "";
    expect(url).toMatch(/^postgresql:\/\/rebound:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/rebound$/);
    expect(JSON.stringify(compose)).not.toMatch(/rebound:rebound@|POSTGRES_PASSWORD: rebound\b/);
  });

  it("gives the console its first admin only from the environment, and keeps init for orphans", () => {
    // Compose's own interpolation, `${VAR:-}`: empty (so unset, for env.ts) unless the installer sets it.
    const fromEnvironment = (name: string) => ["$", "{", name, ":-}"].join("");
    expect(console_?.environment?.REBOUND_ADMIN_EMAIL).toBe(fromEnvironment("REBOUND_ADMIN_EMAIL"));
    expect(console_?.environment?.REBOUND_ADMIN_PASSWORD).toBe(fromEnvironment("REBOUND_ADMIN_PASSWORD"));
    expect(console_?.environment?.NODE_ENV ?? "production").toBe("production");
    expect(console_?.environment?.REBOUND_SEED).toBeUndefined();
    expect(console_?.init).toBe(true);
  });
});

describe("REBOUND_SEED: demo users only in the one-machine demo", () => {
  it.each([
    ["auto", "production", "local", "none"],
    ["auto", "production", "kubernetes", "none"],
    ["auto", "development", "kubernetes", "none"],
    ["auto", "test", "kubernetes", "none"],
    ["auto", "development", "local", "demo"],
    ["auto", "test", "local", "demo"],
    ["none", "development", "local", "none"],
    ["demo", "production", "local", "demo"],
  ] as const)("%s with NODE_ENV=%s and REBOUND_CLUSTER=%s seeds %s", (choice, nodeEnv, cluster, want) => {
    expect(resolveSeedMode({ choice, nodeEnv, cluster })).toBe(want);
  });
});

describe("the installer's first admin (REBOUND_ADMIN_*)", () => {
  it("is none when nothing is set", async () => {
    expect(await adminCredentials({})).toBeNull();
  });

  it.each([
    [{ REBOUND_ADMIN_PASSWORD: "a long enough password" }, /REBOUND_ADMIN_EMAIL: required/],
    [{ REBOUND_ADMIN_EMAIL: "ops@example.com" }, /REBOUND_ADMIN_PASSWORD: required/],
    [
      {
        REBOUND_ADMIN_EMAIL: "a@b.c",
        REBOUND_ADMIN_PASSWORD: "x".repeat(12),
        REBOUND_ADMIN_PASSWORD_FILE: "/f",
      },
      /set one of them, not both/,
    ],
    [
      { REBOUND_ADMIN_EMAIL: "a@b.c", REBOUND_ADMIN_PASSWORD_FILE: "/nonexistent/rebound-admin" },
      /REBOUND_ADMIN_PASSWORD_FILE: cannot read \/nonexistent\/rebound-admin/,
    ],
  ])("refuses a half-given admin %j, naming the variable", async (env, message) => {
    await expect(adminCredentials(env)).rejects.toThrow(message);
  });

  it("reads a Secret file without its trailing newline, and refuses a short one", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "rebound-admin-"));
    try {
      const file = path.join(dir, "password");
      await writeFile(file, "correct horse battery staple\n");
      expect(
        await adminCredentials({ REBOUND_ADMIN_EMAIL: "a@b.c", REBOUND_ADMIN_PASSWORD_FILE: file }),
      ).toEqual({
        email: "a@b.c",
        password: "correct horse battery staple",
      });
      await writeFile(file, "hunter2\n");
      await expect(
        adminCredentials({ REBOUND_ADMIN_EMAIL: "a@b.c", REBOUND_ADMIN_PASSWORD_FILE: file }),
      ).rejects.toThrow(/REBOUND_ADMIN_PASSWORD_FILE: the password in .*: at least 12 characters/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("deploy/console: the first admin on Kubernetes", () => {
  type EnvVar = {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; optional?: boolean } };
  };
  type Container = { name: string; command: string[]; env?: EnvVar[] };
  const deployment = parseAllDocuments(
    readFileSync(path.join(ROOT, "deploy/console/deployment.yaml"), "utf8"),
  )
    .map((doc) => doc.toJS() as { kind: string; spec: { template: { spec: Record<string, Container[]> } } })
    .find((doc) => doc.kind === "Deployment");
  const pod = deployment?.spec.template.spec;
  const setup = pod?.initContainers?.find((container) => container.name === "setup");

  it("runs the setup step (migrate, settings, first admin) before the console", () => {
    expect(setup?.command).toEqual(["node", "--import", "tsx", "scripts/db-setup.ts"]);
  });

  it("reads the admin's password only from an optional Secret, and the console never sees it", () => {
    const password = setup?.env?.find((variable) => variable.name === "REBOUND_ADMIN_PASSWORD");
    expect(password?.value).toBeUndefined();
    expect(password?.valueFrom?.secretKeyRef).toMatchObject({ name: "rebound-admin", optional: true });
    for (const container of pod?.containers ?? []) {
      expect(container.env?.map((variable) => variable.name)).not.toContain("REBOUND_ADMIN_PASSWORD");
    }
  });
});
