import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const alias = {
  "@": root,
  "server-only": fileURLToPath(new URL("./test/empty-module.ts", import.meta.url)),
};
const exclude = ["node_modules/**", ".next/**", ".data/**", "e2e/**", "generated/**"];

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["**/*.test.ts", "**/*.test.tsx"], exclude, environment: "node" },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["**/*.integration-test.ts"],
          exclude,
          environment: "node",
          globalSetup: ["./test/integration-global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
