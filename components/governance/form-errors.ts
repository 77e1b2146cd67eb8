/**
 * Field-level messages for the governance forms, from the same zod schema the server checks with (validate
 * as you type) and from the server's refusal (which names the bad field: `resources.1.guaranteed: …` for a
 * schema error, `resources[1].guaranteed: …` in an INVALID message). Keys are dotted paths
 * (`resources.1.guaranteed`), so a field finds its message whichever side found the mistake.
 */
export type FieldErrors = Readonly<Record<string, string>>;

type IssueLike = { path: ReadonlyArray<PropertyKey>; message: string };

/** The first message per dotted path (`""` for the whole input). */
export function fieldErrorsOf(issues: readonly IssueLike[]): FieldErrors {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join(".");
    out[key] ??= issue.message;
  }
  return out;
}

/** `resources[1].guaranteed` → `resources.1.guaranteed`. */
export function normalizePath(path: string): string {
  return path.replace(/\[(\d+)\]/g, ".$1").replace(/^\./, "");
}

const FIELD_MESSAGE = /^([A-Za-z_][\w]*(?:\.\w+|\[\d+\])*):\s+(.+)$/;

/** "a.b: x; c[0].d: y" → { "a.b": "x", "c.0.d": "y" }; parts that name no field are left out. */
export function fieldErrorsFromMessage(message: string): FieldErrors {
  const out: Record<string, string> = {};
  for (const part of message.split("; ")) {
    const match = FIELD_MESSAGE.exec(part.trim());
    if (!match?.[1] || !match[2]) continue;
    out[normalizePath(match[1])] ??= match[2];
  }
  return out;
}

export type ServerRefusal = {
  /** AppError code (CONFLICT, FORBIDDEN, INVALID, …) when the server sent one. */
  code: string | null;
  message: string;
  fields: FieldErrors;
};

type ErrorShape = {
  message?: unknown;
  data?: { appErrorCode?: unknown; code?: unknown; issues?: unknown } | null;
};

/** The error formatter's `issues` ([{ path: "resources[1].guaranteed", message }]) as field errors. */
function fieldErrorsFromIssues(issues: unknown): FieldErrors {
  if (!Array.isArray(issues)) return {};
  const out: Record<string, string> = {};
  for (const issue of issues as Array<{ path?: unknown; message?: unknown }>) {
    if (typeof issue.path === "string" && typeof issue.message === "string")
      out[normalizePath(issue.path)] ??= issue.message;
  }
  return out;
}

/** What a failed mutation says, from a TRPCClientError or anything else thrown. */
export function serverRefusal(error: unknown): ServerRefusal {
  const shape = (typeof error === "object" && error !== null ? error : {}) as ErrorShape;
  const message = typeof shape.message === "string" ? shape.message : String(error);
  const appCode = shape.data?.appErrorCode;
  const trpcCode = shape.data?.code;
  const code = typeof appCode === "string" ? appCode : typeof trpcCode === "string" ? trpcCode : null;
  return {
    code,
    message,
    fields: { ...fieldErrorsFromMessage(message), ...fieldErrorsFromIssues(shape.data?.issues) },
  };
}

/** A field's message: the live (client) check first, then what the server said about it. */
export function messageFor(path: string, live: FieldErrors, server: FieldErrors): string | undefined {
  return live[path] ?? server[path];
}
