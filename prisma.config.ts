// Prisma CLI configuration. The URL is only needed by CLI commands that talk to a database
// (`prisma migrate deploy` where the schema engine exists); `prisma generate` does not use it.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations", seed: "tsx prisma/seed.ts" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/rebound" },
});
