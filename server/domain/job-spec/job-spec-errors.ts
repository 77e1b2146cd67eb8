import type { z } from "zod";
import { knownKeysAt, suggestKey } from "./schema-keys";

/** One problem in a submitted job, with its field path and (for YAML input) its 1-based source position. */
export type JobSpecError = { path: string; line?: number; column?: number; message: string };

export type IssuePath = readonly PropertyKey[];
export type SourcePosition = { line: number; column: number };
/** Maps a field path to where it was written; "key" asks for the key of a map entry rather than its value. */
export type Locator = (path: IssuePath, target: "key" | "value") => SourcePosition | undefined;

type Issue = z.core.$ZodIssue;
type ConvertOptions = { schema: z.ZodType; locate?: Locator };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const MAX_SHOWN_CHARS = 40;

/** `["spec", "replicaSpecs", 0, "name"]` → `spec.replicaSpecs[0].name`; odd keys are bracket-quoted. */
export function formatPath(path: IssuePath): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (IDENTIFIER.test(String(segment))) text += text === "" ? String(segment) : `.${String(segment)}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

/** A short rendering of a user's value for "got …" in messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    return JSON.stringify(value.length > MAX_SHOWN_CHARS ? `${value.slice(0, MAX_SHOWN_CHARS)}…` : value);
  }
  return String(value);
}

function isMissing(issue: Issue): boolean {
  const expectsValue = issue.code !== "custom" && issue.code !== "unrecognized_keys";
  return expectsValue && issue.input === undefined && issue.path.length > 0;
}

function messageFor(issue: Issue): string {
  if (isMissing(issue)) return `missing required field "${String(issue.path.at(-1) ?? "")}"`;
  // zod's stock wording ("Invalid input: expected string, received number") is reduced to ours.
  const base =
    issue.code === "invalid_type" && issue.message.startsWith("Invalid input")
      ? `expected ${issue.expected}`
      : issue.message;
  return issue.code === "custom" ? base : `${base}, got ${describeValue(issue.input)}`;
}

function unknownKeyErrors(issue: z.core.$ZodIssueUnrecognizedKeys, options: ConvertOptions): JobSpecError[] {
  const known = knownKeysAt(options.schema, issue.path);
  return issue.keys.map((key) => {
    const path = [...issue.path, key];
    const suggestion = suggestKey(key, known);
    const hint = suggestion === undefined ? "" : `; did you mean "${suggestion}"?`;
    return {
      path: formatPath(path),
      ...options.locate?.(path, "key"),
      message: `unknown field "${key}"${hint}`,
    };
  });
}

function issueErrors(issue: Issue, options: ConvertOptions): JobSpecError[] {
  if (issue.code === "unrecognized_keys") return unknownKeyErrors(issue, options);
  const position = options.locate?.(issue.path, "value");
  return [{ path: formatPath(issue.path), ...position, message: messageFor(issue) }];
}

/** Converts zod issues to JobSpecErrors, ordered by source line when positions are known. */
export function issuesToErrors(issues: readonly Issue[], options: ConvertOptions): JobSpecError[] {
  const errors = issues.flatMap((issue) => issueErrors(issue, options));
  return errors
    .map((error, index) => ({ error, index }))
    .sort((a, b) => (a.error.line ?? 0) - (b.error.line ?? 0) || a.index - b.index)
    .map(({ error }) => error);
}

/** One line per error, e.g. `line 12, spec.runPolicy.restartPolicy.evalPeriodSeconds: expected …`. */
export function formatJobSpecErrors(errors: readonly JobSpecError[]): string {
  return errors
    .map((error) => {
      const where = [error.line === undefined ? "" : `line ${error.line}`, error.path]
        .filter(Boolean)
        .join(", ");
      return where === "" ? error.message : `${where}: ${error.message}`;
    })
    .join("\n");
}
