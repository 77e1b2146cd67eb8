/**
 * The schema's messages (parsePolicyYaml's errors and warnings, whose paths are written
 * `logMonitoringConfiguration[0].name`) keyed as the form looks them up: `logMonitoringConfiguration.0.name`.
 * A whole job's `spec.runPolicy.` prefix is dropped; the first message per field wins.
 */
type Problem = { path: string; message: string };

export function formKey(path: ReadonlyArray<string | number>): string {
  return path.join(".");
}

export function fieldErrors(problems: readonly Problem[]): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const problem of problems) {
    const key = problem.path
      .replace(/\[(\d+)\]/g, ".$1")
      .replace(/^\./, "")
      .replace(/^spec\.runPolicy\./, "");
    out[key] ??= problem.message;
  }
  return out;
}
