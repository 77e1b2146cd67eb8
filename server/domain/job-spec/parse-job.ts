import { type Document, isScalar, LineCounter, type Node, parseAllDocuments, visit } from "yaml";
import { MAX_BODY_BYTES } from "@/server/domain/limits";
import { expandedSize } from "./expanded-size";
import { type HyperPodPyTorchJob, hyperPodPyTorchJobSchema, JOB_KIND } from "./job-spec.schema";
import { issuesToErrors, type JobSpecError, type Locator } from "./job-spec-errors";
import { type JobSpecWarning, jobSpecWarnings } from "./job-spec-warnings";
import { createYamlLocator } from "./yaml-locate";

export type { JobSpecWarning } from "./job-spec-warnings";

/**
 * An accepted job comes with `warnings`: what hyperpodrun would ignore or bend (same shape as an error,
 * e.g. `spec.runPolicy.logMonitoringConfiguration[0].foo`, line 40: "rule hang: key "foo" is not a
 * HyperPod rule key; hyperpodrun ignores it"). A refused job has errors only.
 */
export type ParseJobResult =
  | { ok: true; job: HyperPodPyTorchJob; warnings: JobSpecWarning[] }
  | { ok: false; errors: JobSpecError[] };

/**
 * Manifests above this size are refused before parsing (Kubernetes itself caps objects near 1.5 MiB), and so
 * are manifests whose aliases expand them past it: it is the operator's request body limit.
 */
export const MAX_JOB_YAML_BYTES = MAX_BODY_BYTES;
/**
 * Alias expansions allowed while converting YAML to JS (the `yaml` package's "billion laughs" guard). It
 * counts aliases, not bytes: 99 aliases of a 10 KB string pass it, hence the expanded-size check as well.
 */
const MAX_ALIAS_COUNT = 100;

function validate(value: unknown, locate?: Locator): ParseJobResult {
  const result = hyperPodPyTorchJobSchema.safeParse(value, { reportInput: true });
  if (result.success) {
    return {
      ok: true,
      job: result.data,
      warnings: jobSpecWarnings({ raw: value, job: result.data, locate }),
    };
  }
  return {
    ok: false,
    errors: issuesToErrors(result.error.issues, { schema: hyperPodPyTorchJobSchema, locate }),
  };
}

/** Validates a job that is already a JS value (JSON from Kubernetes, an API body). Errors carry no lines. */
export function parseJobObject(value: unknown): ParseJobResult {
  return validate(value);
}

function failure(message: string, position?: { line: number; column: number }): ParseJobResult {
  return { ok: false, errors: [{ path: "", ...position, message }] };
}

function isEmptyDocument(doc: Document): boolean {
  return doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null);
}

function syntaxErrors(docs: readonly Document[], lineCounter: LineCounter): JobSpecError[] {
  return docs.flatMap((doc) =>
    doc.errors.map((error) => {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      return { path: "", line, column: col, message: `YAML syntax error: ${error.message}` };
    }),
  );
}

function toJs(doc: Document): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    return {
      ok: false,
      message: `cannot read the YAML: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function firstAlias(doc: Document): Node | null {
  let found: Node | null = null;
  visit(doc, {
    Alias(_key, node) {
      found = node;
      return visit.BREAK;
    },
  });
  return found;
}

/** A document with aliases may not expand past the body limit (each alias repeats its anchor's content). */
function expandsTooFar(doc: Document, value: unknown, lineCounter: LineCounter): ParseJobResult | null {
  const alias = firstAlias(doc);
  if (alias === null || expandedSize(value, MAX_JOB_YAML_BYTES) <= MAX_JOB_YAML_BYTES) return null;
  const { line, col } = lineCounter.linePos(alias.range?.[0] ?? 0);
  return failure(
    `the manifest's YAML aliases (*name) expand it to more than ${MAX_JOB_YAML_BYTES} bytes (1 MiB, the ` +
      "request body limit); write the repeated values out once each or make them smaller",
    { line, column: col },
  );
}

/**
 * Parses and validates one `HyperPodPyTorchJob` manifest. Every error names the field path and the 1-based
 * line and column it refers to; syntax errors, several documents and oversized input are refused as well.
 */
export function parseJobYaml(text: string): ParseJobResult {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_JOB_YAML_BYTES) {
    return failure(`the manifest is ${bytes} bytes; the limit is ${MAX_JOB_YAML_BYTES} bytes (1 MiB)`);
  }
  const lineCounter = new LineCounter();
  const docs = Array.from(parseAllDocuments(text, { lineCounter, prettyErrors: false }));
  const errors = syntaxErrors(docs, lineCounter);
  if (errors.length > 0) return { ok: false, errors };

  const [doc, extra] = docs.filter((candidate) => !isEmptyDocument(candidate));
  if (doc === undefined) return failure(`the YAML is empty; expected one ${JOB_KIND} manifest`);
  if (extra !== undefined) {
    const { line, col } = lineCounter.linePos(extra.range[0]);
    return failure(`found more than one YAML document; submit one ${JOB_KIND} per manifest`, {
      line,
      column: col,
    });
  }
  const js = toJs(doc);
  if (!js.ok) return failure(js.message);
  const expanded = expandsTooFar(doc, js.value, lineCounter);
  if (expanded) return expanded;
  return validate(js.value, createYamlLocator(doc, lineCounter));
}
