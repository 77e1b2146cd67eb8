"use client";

import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/lib/trpc/client";
import type { TvView } from "@/server/domain/access/share";
import type { TvFrame } from "@/server/services/tv/frame";

/**
 * Where a TV's stream stands: live, reconnecting (the last good frame stays on screen), or ended for good
 * with the server's reason: the token was revoked or does not include this view, or nobody is signed in.
 */
export type TvStreamState =
  | { kind: "connecting" }
  | { kind: "live" }
  | { kind: "reconnecting" }
  | { kind: "ended"; code: "UNAUTHORIZED" | "FORBIDDEN" | "OTHER"; message: string };

/** The build of the first frame this tab saw: a frame from another build means a deploy, so the TV reloads. */
let firstBuild: string | null = null;

function checkBuild(build: string) {
  if (firstBuild === null) firstBuild = build;
  else if (build !== firstBuild) window.location.reload();
}

function endedCode(code: string | undefined): "UNAUTHORIZED" | "FORBIDDEN" | "OTHER" {
  return code === "UNAUTHORIZED" || code === "FORBIDDEN" ? code : "OTHER";
}

/** Ended streams that may open again at once (the teams in scope changed) or after a pause (a server error). */
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
  const transient = stream.status === "error" && endedCode(code) === "OTHER";
  const { reset } = stream;
  useEffect(() => {
    if (!transient) return;
    const timer = setTimeout(reset, code === "CONFLICT" ? 0 : REOPEN_AFTER_MS);
    return () => clearTimeout(timer);
  }, [transient, code, reset]);

  let state: TvStreamState;
  if (stream.status === "error" && !transient)
    state = { kind: "ended", code: endedCode(code), message: stream.error?.message ?? "the stream ended" };
  else if (stream.status === "pending") state = { kind: "live" };
  else state = frame === null ? { kind: "connecting" } : { kind: "reconnecting" };
  return { frame: state.kind === "ended" ? null : frame, notice, state };
}
