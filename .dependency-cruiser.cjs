// The layers of docs/architecture.md ("Layers"), checked by test/dependency-rules.test.ts (and by
// `npx depcruise --config .dependency-cruiser.cjs server app components bench scripts lib` by hand).
//
// Test code (*.test.ts, *.integration-test.ts, *.k8s-test.ts and the testing/ folders) starts both
// processes against one database to test what passes between them, so it is held only to "no cycles" and
// to the schema rule, not to the direction between layers.

const TEST_CODE = "\\.(test|integration-test|k8s-test)\\.tsx?$|/testing/";
const DOMAIN = "^server/domain/";
const CONSOLE = "^(app|components)/|^server/(api|services)/";
const OPERATOR = "^server/operator/";
const BELOW_BOTH = "^server/(cluster|db|store)/";
const OURS_OUTSIDE_DOMAIN =
  "^(?!server/domain/)(server|app|components|lib|bench|scripts|test|e2e|generated)/|^[^/]+\\.tsx?$";

/**
 * Imports that break a rule today and are to go: each names its rule, the importing module and the module
 * it imports. The goal (issue 35) is an empty list; test/dependency-rules.test.ts fails on one that no
 * longer happens, so the list only shrinks.
 */
const EXCEPTIONS = [];

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "No module reaches itself through its imports; a shared piece goes to a small leaf module.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "domain-imports-only-domain",
      comment:
        "server/domain is the pure logic both processes share: it imports nothing of ours outside itself.",
      severity: "error",
      from: { path: DOMAIN, pathNot: TEST_CODE },
      to: { path: OURS_OUTSIDE_DOMAIN },
    },
    {
      name: "console-not-operator",
      comment:
        "The console (app, components, server/api, server/services) and the operator meet only through the operator API.",
      severity: "error",
      from: { path: CONSOLE, pathNot: TEST_CODE },
      to: { path: OPERATOR },
    },
    {
      name: "operator-not-console",
      comment:
        "The operator and the console meet only through the operator API; the records both write live in server/store.",
      severity: "error",
      from: { path: OPERATOR, pathNot: TEST_CODE },
      to: { path: CONSOLE },
    },
    {
      name: "store-cluster-and-db-below-both",
      comment:
        "server/store (the records both processes write), server/cluster and server/db serve both processes, so they import neither.",
      severity: "error",
      from: { path: BELOW_BOTH, pathNot: TEST_CODE },
      to: { path: `${CONSOLE}|${OPERATOR}` },
    },
    {
      name: "services-below-routers",
      comment: "Routers call services; a service never imports a router or its schema.",
      severity: "error",
      from: { path: "^server/services/", pathNot: TEST_CODE },
      to: { path: "^server/api/" },
    },
    {
      name: "router-schemas-stay-in-api",
      comment:
        "A router's own schema is for server/api only; a schema others need belongs to its owner (a service's or the domain's *.schema.ts), which the router imports.",
      severity: "error",
      from: { pathNot: "^server/api/" },
      to: { path: "^server/api/routers/.+\\.schema\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|generated|\\.next|dist)/" },
    // `@/` is the repository root (tsconfig.json "paths"); type-only imports count as edges too.
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
    knownViolations: EXCEPTIONS,
  },
};
