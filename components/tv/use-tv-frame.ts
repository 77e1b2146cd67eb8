"use client";

import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { TvView } from "@/server/domain/access/share";
import type { TvFrame } from "@/server/services/tv/frame";
import { isFinalError, tvStreamState } from "./stream-state";

/** The build of the first frame this tab saw: a frame from another build means a deploy, so the TV reloads. */
let firstBuild: string | null = null;

function checkBuild(build: string) {
  if (firstBuild === null) firstBuild = build;
  else if (build !== firstBuild) window.location.reload();
}

/** A stream that ended with an error that may pass (a server error) is opened again after this long. */
const REOPEN_AFTER_MS = 5000;

/**
 * One TV view's frames over SSE. Only the current frame is kept (each message replaces it), so a tab that
 * runs for days holds one frame. `notice`: the server's last "unavailable" message while it cannot read
 * the cluster (the last good frame stays).
 */
export function useTvFrame(view: TvView) {
  const trpc = useTRPC();
  const [frame, setFrame] = useState<TvFrame | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const stream = useSubscription(
    trpc.tv.frame.subscriptionOptions(
      { view },
      {
        onData: (message) => {
          if (message.kind === "unavailable") {
            setNotice(message.message);
            return;
          }
          const next = message.kind === "snapshot" ? message.value : message.patch;
          checkBuild(next.build);
          setFrame(next);
          setNotice(null);
        },
      },
    ),
  );
  const code = stream.error?.data?.code;
  const passing = stream.status === "error" && !isFinalError(code);
  const { reset } = stream;
  useEffect(() => {
    if (!passing) return;
    const timer = setTimeout(reset, REOPEN_AFTER_MS);
    return () => clearTimeout(timer);
  }, [passing, reset]);
  const state = tvStreamState({
    status: stream.status,
    error: stream.error ? { code, message: stream.error.message } : null,
    hasFrame: frame !== null,
  });
  // Once access has ended, nothing of the last frame stays on screen.
  return { frame: state.kind === "ended" ? null : frame, notice, state };
}
