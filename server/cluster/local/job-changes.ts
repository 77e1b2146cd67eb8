import pg from "pg";

/**
 * The local back end's news of job changes made by any process, from Postgres's notices (channel
 * rebound_local_job, sent by the trigger of migration 20261205500000_local_job_changes after each commit):
 * a change reaches the operator in milliseconds, and nothing reads the whole LocalJob table every second
 * (at 10,000 queued jobs that read alone took tens of milliseconds of the operator's event loop a second).
 * A lost connection is retried with backoff; `onListening(false)` tells the back end to poll meanwhile, and
 * `onListening(true)` (again after a reconnect) to catch up on what it may have missed.
 */
export const JOB_CHANGES_CHANNEL = "rebound_local_job";
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

export type JobChanges = { stop(): Promise<void> };

export function listenForJobChanges(opts: {
  url: string;
  onChange: (ref: { namespace: string; name: string }) => void;
  onListening: (listening: boolean) => void;
}): JobChanges {
  let client: pg.Client | null = null;
  let stopped = false;
  let retryMs = RETRY_MIN_MS;
  let retry: NodeJS.Timeout | undefined;

  const lost = () => {
    if (stopped) return;
    opts.onListening(false);
    const dead = client;
    client = null;
    void dead?.end().catch(() => undefined);
    retry = setTimeout(connect, retryMs);
    retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
  };

  async function connect() {
    if (stopped) return;
    const next = new pg.Client({ connectionString: opts.url });
    next.on("notification", (message) => {
      const [namespace, name] = (message.payload ?? "").split("/");
      if (namespace && name) opts.onChange({ namespace, name });
    });
    next.on("error", lost);
    next.on("end", () => {
      if (client === next) lost();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${JOB_CHANGES_CHANNEL}`);
    } catch {
      void next.end().catch(() => undefined);
      lost();
      return;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    retryMs = RETRY_MIN_MS;
    opts.onListening(true);
  }

  void connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const last = client;
      client = null;
      await last?.end().catch(() => undefined);
    },
  };
}
