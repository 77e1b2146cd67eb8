import type { TRPC_ERROR_CODE_KEY } from "@trpc/server";

/**
 * Every error the app raises on purpose carries one of these codes
 * (docs/architecture.md, "Errors and inputs").
 */
export type AppErrorCode =
  | "NOT_FOUND"
  | "FORBIDDEN"
  | "UNAUTHORIZED"
  | "CONFLICT"
  | "UNAVAILABLE"
  | "INVALID"
  | "TOO_MANY_REQUESTS";

export class AppError extends Error {
  override name = "AppError";
  readonly code: AppErrorCode;

  constructor(code: AppErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The one place app error codes map to tRPC (and so HTTP) codes. */
export function toTrpcCode(code: AppErrorCode): TRPC_ERROR_CODE_KEY {
  switch (code) {
    case "NOT_FOUND":
      return "NOT_FOUND";
    case "FORBIDDEN":
      return "FORBIDDEN";
    case "UNAUTHORIZED":
      return "UNAUTHORIZED";
    case "CONFLICT":
      return "CONFLICT";
    case "UNAVAILABLE":
      return "SERVICE_UNAVAILABLE";
    case "INVALID":
      return "BAD_REQUEST";
    case "TOO_MANY_REQUESTS":
      return "TOO_MANY_REQUESTS";
    default:
      return code satisfies never;
  }
}
