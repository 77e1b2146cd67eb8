/**
 * `npm run generate:crd`: writes deploy/chart/files/crd/hyperpodpytorchjobs.sagemaker.amazonaws.com.yaml from the zod
 * job schema. `--check` writes nothing and exits 1 when the committed file differs from what it would write.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { CRD_FILE, renderCrdYaml } from "./lib/crd";

const ROOT = path.resolve(import.meta.dirname, "..");

async function main() {
  const relative = path.relative(ROOT, CRD_FILE);
  const wanted = renderCrdYaml();
  if (process.argv.includes("--check")) {
    const current = existsSync(CRD_FILE) ? await readFile(CRD_FILE, "utf8") : undefined;
    if (current !== wanted) {
      const what = current === undefined ? "is missing" : "is out of date with the job schema";
      console.error(`generate:crd: ${relative} ${what}; run \`npm run generate:crd\` and commit the result`);
      process.exit(1);
    }
    console.log(`generate:crd: ${relative} is up to date`);
    return;
  }
  await mkdir(path.dirname(CRD_FILE), { recursive: true });
  await writeFile(CRD_FILE, wanted);
  console.log(`generate:crd: wrote ${relative}`);
}

main().catch((error: unknown) => {
  console.error(`generate:crd: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
