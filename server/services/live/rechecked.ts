/**
 * A viewer's live stream that asks again, every `everyMs`, whether it may go on: `recheck` says "keep",
 * "reopen" (what the viewer may read changed: the stream starts again on its new scope, with a snapshot),
 * or throws to end the stream with that error (a revoked session: UNAUTHORIZED). The recheck runs on its
 * own timer, so a stream with nothing to send still ends on time.
 */
export type Recheck = () => Promise<"keep" | "reopen">;

type Verdict = { kind: "open" } | { kind: "reopen" } | { kind: "ended"; error: unknown };

/** Rechecks every `everyMs` until one says otherwise or `inner` is aborted; the verdict aborts `inner`. */
function watchAccess(opts: { recheck: Recheck; everyMs: number; inner: AbortController }) {
  const state: { verdict: Verdict; timer: ReturnType<typeof setTimeout> | undefined } = {
    verdict: { kind: "open" },
    timer: undefined,
  };
  const decide = (verdict: Verdict) => {
    state.verdict = verdict;
    opts.inner.abort();
  };
  const schedule = () => {
    state.timer = setTimeout(() => {
      opts.recheck().then(
        (answer) => {
          if (opts.inner.signal.aborted) return;
          if (answer === "reopen") decide({ kind: "reopen" });
          else schedule();
        },
        (error: unknown) => decide({ kind: "ended", error }),
      );
    }, opts.everyMs);
  };
  schedule();
  return {
    verdict: () => state.verdict,
    stop: () => clearTimeout(state.timer),
  };
}

export async function* rechecked<M>(opts: {
  signal: AbortSignal | undefined;
  everyMs: number;
  /** The stream for the viewer's current scope; it must end when `signal` aborts. */
  open: (signal: AbortSignal) => AsyncIterable<M>;
  recheck: Recheck;
}): AsyncGenerator<M, void> {
  while (!opts.signal?.aborted) {
    const inner = new AbortController();
    const stopInner = () => inner.abort();
    opts.signal?.addEventListener("abort", stopInner, { once: true });
    const access = watchAccess({ recheck: opts.recheck, everyMs: opts.everyMs, inner });
    try {
      for await (const message of opts.open(inner.signal)) yield message;
    } finally {
      access.stop();
      opts.signal?.removeEventListener("abort", stopInner);
      inner.abort();
    }
    const verdict = access.verdict();
    if (verdict.kind === "ended") throw verdict.error;
    if (verdict.kind !== "reopen") return;
  }
}
