import { createEnv } from "@t3-oss/env-nextjs";
import { z } from "zod";
import {
  adminPasswordSchema,
  describeEnvIssues,
  InvalidEnvError,
  portSchema,
  postgresUrlSchema,
} from "@/lib/env-schema";
import { parseTrustedProxies } from "@/server/services/auth/client-address";

/**
 * The console's environment, validated once. With DATABASE_URL unset, `npm start` runs an embedded
 * PostgreSQL under REBOUND_DATA_DIR and hands its URL to the console process.
 */
export const env = createEnv({
  server: {
    NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
    DATABASE_URL: postgresUrlSchema.optional(),
    PORT: portSchema.default(3000),
    HOSTNAME: z.string().min(1).default("0.0.0.0"),
    REBOUND_DATA_DIR: z.string().min(1).default(".data"),
    /**
     * What an empty database gets: demo (teams + demo users, password rebound-demo), none (settings only; the
     * first admin from REBOUND_ADMIN_* or a setup link), auto = demo only when not production and local.
     * `never` is the old spelling of none.
     */
    REBOUND_SEED: z
      .enum(["auto", "demo", "none", "never"])
      .default("auto")
      .transform((value) => (value === "never" ? "none" : value)),
    /** The first cluster admin, created at start when no user has this email (with a password below). */
    REBOUND_ADMIN_EMAIL: z.email({ message: "expected an email address" }).optional(),
    REBOUND_ADMIN_PASSWORD: adminPasswordSchema.optional(),
    /** A file holding the password instead (a mounted Kubernetes Secret); read at start. */
    REBOUND_ADMIN_PASSWORD_FILE: z.string().min(1).optional(),
    OPERATOR_PORT: portSchema.default(8081),
    /** local: the embedded back end (npm start runs the operator); kubernetes: read a real cluster. */
    REBOUND_CLUSTER: z.enum(["local", "kubernetes"]).default("local"),
    /** kubernetes: a kubeconfig file; unset = KUBECONFIG's rules, or in-cluster credentials. */
    REBOUND_KUBECONFIG: z.string().min(1).optional(),
    /** A Prometheus that scrapes the agents (README, Metrics): loss/throughput history on job pages. */
    PROMETHEUS_URL: z.url().optional(),
    /** The operator's live-state API, for the console (npm start sets it). */
    REBOUND_OPERATOR_URL: z.url().optional(),
    /** The operator API's bearer token; unset: the service-account token (kubernetes) or <data dir>/operator-token. */
    REBOUND_OPERATOR_TOKEN: z.string().min(1).optional(),
    /**
     * The demo job on the local back end: auto = submit it when there are no jobs, except in production
     * (the Docker image sets NODE_ENV=production); always = in production too; never = leave it empty.
     */
    REBOUND_DEMO: z.enum(["auto", "always", "never"]).default("auto"),
    /** The largest request body the console reads (1 MiB); a larger one gets 413 before it is parsed. */
    REBOUND_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
    /**
     * Which proxies' X-Forwarded-For is believed for the client address that sign-in and pairing limits count:
     * unset = none (the connection's address); a hop count (1: one ingress in front); or addresses, CIDRs,
     * loopback, linklocal, uniquelocal (server/services/auth/client-address.ts).
     */
    REBOUND_TRUSTED_PROXIES: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const parsed = parseTrustedProxies(value);
        if ("error" in parsed) {
          ctx.addIssue({ code: "custom", message: parsed.error });
          return z.NEVER;
        }
        return parsed;
      }),
    /**
     * Single sign-on with OpenID Connect (docs/sso.md): on when REBOUND_OIDC_ISSUER is set, which then needs
     * the client id, secret and REBOUND_PUBLIC_URL (checked by server/services/auth/oidc/settings.ts).
     */
    REBOUND_OIDC_ISSUER: z.url().optional(),
    REBOUND_OIDC_CLIENT_ID: z.string().min(1).optional(),
    REBOUND_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    REBOUND_OIDC_SCOPES: z.string().min(1).default("openid profile email groups"),
    /** The ID token or userinfo claim that lists the user's groups. */
    REBOUND_OIDC_GROUPS_CLAIM: z.string().min(1).default("groups"),
    /** The provider's name on the sign-in button ("Sign in with <name>"). */
    REBOUND_OIDC_NAME: z.string().min(1).default("single sign-on"),
    /** The console's URL as browsers reach it; the provider redirects to <url>/api/auth/oidc/callback. */
    REBOUND_PUBLIC_URL: z.url().optional(),
    /** off: no sign-in with a local password (single sign-on only); on by default, for one machine. */
    REBOUND_LOCAL_PASSWORDS: z.enum(["on", "off"]).default("on"),
    /** Inject a random fault into the demo job this often (0 = never). */
    REBOUND_DEMO_FAULT_INTERVAL_SECONDS: z.coerce.number().min(0).default(60),
  },
  client: {},
  experimental__runtimeEnv: {},
  emptyStringAsUndefined: true,
  skipValidation: process.env.SKIP_ENV_VALIDATION === "1",
  onValidationError: (issues) => {
    throw new InvalidEnvError(describeEnvIssues(issues, process.env));
  },
});
