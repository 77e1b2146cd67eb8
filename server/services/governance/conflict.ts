import { AppError } from "@/server/errors";

/**
 * Optimistic concurrency (HyperPod's TargetVersion): every write sends the version it read; a stale one is
 * refused, changes nothing, and says who changed it since and when.
 */
function clock(at: Date): string {
  return `${at.toISOString().slice(11, 16)} UTC`;
}

export function staleWriteError(
  what: string,
  current: {
    version: number;
    sent: number;
    updatedAt: Date | null;
    updatedBy: string | null;
  },
): AppError {
  const who = current.updatedBy ?? "someone";
  const when = current.updatedAt ? ` at ${clock(current.updatedAt)}` : "";
  return new AppError(
    "CONFLICT",
    `${what} was changed by ${who}${when} (version ${current.version}; you read ${current.sent}); reload to see their change`,
  );
}
