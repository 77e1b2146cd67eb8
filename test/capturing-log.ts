import type { Logger } from "@/server/log";

export type LogRecord = { msg: string; fields?: Record<string, unknown> };

/** A Logger that keeps every record (any level, children included) for a test to read. */
export function capturingLogger(): { log: Logger; logs: LogRecord[] } {
  const logs: LogRecord[] = [];
  const log: Logger = {
    info: (msg, fields) => void logs.push({ msg, fields }),
    warn: (msg, fields) => void logs.push({ msg, fields }),
    error: (msg, fields) => void logs.push({ msg, fields }),
    child: () => log,
  };
  return { log, logs };
}
