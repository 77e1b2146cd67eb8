import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const alias = {
  "@": root,
  "server-only": fileURLToPath(new URL("./test/empty-module.ts", import.meta.url)),
};
const exclude = ["node_modules/**", ".next/**", ".data/**", "e2e/**", "generated/**"];
/** Real PostgreSQL (and real child processes): one file at a time, generous timeouts. */
const serial = {
  environment: "node",
  testTimeout: 60_000,
  hookTimeout: 120_000,
  fileParallelism: false,
} as const;

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
          globalSetup: ["./test/integration-global-setup.ts"],
          ...serial,
        },
      },
      {
        // Tests against the real kube-apiserver + KWOK test cluster (e2e/kube), which needs Go to build.
        resolve: { alias },
        test: {
          name: "kubernetes",
          include: ["**/*.k8s-test.ts"],
          exclude,
          globalSetup: ["./test/kube-build-global-setup.ts", "./test/integration-global-setup.ts"],
          ...serial,
        },
      },
    ],
  },
});
