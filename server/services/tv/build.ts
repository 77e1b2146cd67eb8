import { readFileSync } from "node:fs";
import path from "node:path";

let buildId: string | null = null;

/**
 * The console build this process serves (Next's `.next/BUILD_ID`, read once): every TV frame carries it, and
 * a TV that sees it change reloads itself onto the new build. "development" where there is no build.
 */
export function consoleBuild(): string {
  if (buildId === null) {
    try {
      buildId = readFileSync(path.join(process.cwd(), ".next", "BUILD_ID"), "utf8").trim() || "development";
    } catch {
      buildId = "development";
    }
  }
  return buildId;
}
