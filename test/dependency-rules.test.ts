import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";

/**
 * The layers of docs/architecture.md ("Layers"), as rules on the import graph (.dependency-cruiser.cjs):
 * no cycles; the domain imports only the domain; the console and the operator never import each other;
 * cluster and db import neither; services never import routers; a router's schema is imported only inside
 * server/api. Each import that breaks a rule is listed (from → to, rule) unless the config names it as an
 * exception, and an exception that no longer happens fails too, so the list only shrinks.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = path.join(ROOT, ".dependency-cruiser.cjs");
const CRUISED = ["server", "app", "components", "bench", "scripts", "lib"];

type Exception = { from: string; to: string; rule: { name: string } };
const exceptions: Exception[] = createRequire(import.meta.url)(CONFIG).options.knownViolations;

const line = (v: { from: string; to: string; rule: { name: string } }) =>
  `${v.from} → ${v.to} (${v.rule.name})`;

async function cruiseRepository(): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(CONFIG);
  const tsConfig = extractTSConfig(path.join(ROOT, "tsconfig.json"));
  // The resolver takes `@/` from options.tsConfig (the config's tsConfig.fileName); tsConfig here transpiles.
  const result = await cruise(CRUISED, { ...options, baseDir: ROOT }, {}, { tsConfig });
  if (typeof result.output === "string") throw new Error("dependency-cruiser answered text, not a result");
  return result.output;
}

describe("import direction", () => {
  it("every import follows the layers, but for the named exceptions", async () => {
    const result = await cruiseRepository();
    const { totalCruised, totalDependenciesCruised, violations } = result.summary;
    console.info(
      `dependency rules: ${totalCruised} modules, ${totalDependenciesCruised} dependencies checked`,
    );

    // The alias `@/` must resolve, or every rule would pass on an empty graph.
    expect(totalCruised).toBeGreaterThan(500);
    const unresolved = result.modules.flatMap((m) =>
      m.dependencies
        .filter((d) => d.couldNotResolve && d.module.startsWith("@/"))
        .map((d) => `${m.source} → ${d.module}`),
    );
    expect(unresolved).toEqual([]);

    const known = new Set(exceptions.map(line));
    const broken = violations.filter((v: IViolation) => !known.has(line(v))).map(line);
    expect(broken, `imports against the layers:\n${broken.join("\n")}`).toEqual([]);

    const happening = new Set(violations.map(line));
    const stale = exceptions.map(line).filter((entry) => !happening.has(entry));
    expect(stale, `exceptions that no longer happen (remove them from .dependency-cruiser.cjs)`).toEqual([]);
    if (exceptions.length > 0) console.info(`dependency rules: ${exceptions.length} named exceptions left`);
  }, 120_000);
});
