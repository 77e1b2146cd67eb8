/**
 * `npm run generate:deploy`: renders the Helm chart (deploy/chart) into deploy/ (deploy/chart/render.ts says
 * what goes where), so that `kubectl apply -k deploy/` and `rebound install` apply what the chart installs.
 * Files an earlier render wrote that the chart no longer renders are removed. `--check` writes nothing and
 * exits 1 when a committed file differs from the render.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEPLOY_DIR, GENERATED_HEADER, renderDeploy } from "@/deploy/chart/render";

/** The files under deploy/ whose content differs from the render (relative to the repository). */
async function staleFiles(files: Map<string, string>): Promise<string[]> {
  const stale: string[] = [];
  for (const [relative, content] of files) {
    const file = path.join(DEPLOY_DIR, relative);
    const current = existsSync(file) ? await readFile(file, "utf8") : undefined;
    if (current !== content) stale.push(relative);
  }
  return stale;
}

/** Files an earlier render wrote (they start with its header) that the chart no longer renders. */
function orphans(files: Map<string, string>): string[] {
  return readdirSync(DEPLOY_DIR, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".yaml") && !file.startsWith(`chart${path.sep}`))
    .map((file) => file.split(path.sep).join("/"))
    .filter((file) => !files.has(file))
    .filter((file) => readFileSync(path.join(DEPLOY_DIR, file), "utf8").startsWith(GENERATED_HEADER));
}

async function main() {
  const files = await renderDeploy();
  const stale = [...(await staleFiles(files)), ...orphans(files)];
  const named = stale.map((relative) => `deploy/${relative}`).join(", ");
  if (process.argv.includes("--check")) {
    if (stale.length > 0) {
      console.error(
        `generate:deploy: out of date with deploy/chart: ${named}; run \`npm run generate:deploy\``,
      );
      process.exit(1);
    }
    console.log(`generate:deploy: the ${files.size} files deploy/ renders from the chart are up to date`);
    return;
  }
  for (const relative of stale) {
    const file = path.join(DEPLOY_DIR, relative);
    const content = files.get(relative);
    if (content === undefined) {
      await rm(file);
      continue;
    }
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  console.log(`generate:deploy: updated ${stale.length} of ${files.size} files${named ? ` (${named})` : ""}`);
}

main().catch((error: unknown) => {
  console.error(`generate:deploy: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
