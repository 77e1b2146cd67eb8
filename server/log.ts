/** Structured one-line JSON logs; `child` adds bindings such as the tRPC procedure path. */
export type Logger = {
  info: (message: string, fields?: Record<string, unknown>) => void;
  warn: (message: string, fields?: Record<string, unknown>) => void;
  error: (message: string, fields?: Record<string, unknown>) => void;
  child: (bindings: Record<string, unknown>) => Logger;
};

type Level = "info" | "warn" | "error";

function write(
  level: Level,
  bindings: Record<string, unknown>,
  message: string,
  fields?: Record<string, unknown>,
) {
  const line = JSON.stringify({
    level,
    time: new Date().toISOString(),
    msg: message,
    ...bindings,
    ...fields,
  });
  if (level === "info") process.stdout.write(`${line}\n`);
  else process.stderr.write(`${line}\n`);
}

export function createLogger(bindings: Record<string, unknown> = {}): Logger {
  return {
    info: (message, fields) => write("info", bindings, message, fields),
    warn: (message, fields) => write("warn", bindings, message, fields),
    error: (message, fields) => write("error", bindings, message, fields),
    child: (more) => createLogger({ ...bindings, ...more }),
  };
}

export const rootLogger = createLogger({ service: "rebound" });
