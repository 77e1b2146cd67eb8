import { agentStatusSchema } from "@/server/domain/agent-api/protocol";
import type { Logger } from "@/server/log";
import type { Presence, PresenceCore, PushedView, ViewHolder, WatchedPod } from "./presence";

/**
 * Reading a pushed line against the /status schema, where the status is used (the operator's thread), not
 * where it arrives (the presence thread, which then bundles neither zod nor the schemas: ~1 MB less code and
 * ~5 MB less memory in the worker).
 */

/** The holder's view as observe() reads it; a line that is not a /status body reads as null (poll it). */
export function readView(holder: ViewHolder, invalid: (issue: string) => void): PushedView | null {
  if (holder.read !== undefined) return holder.read;
  const { view } = holder;
  if (view === null || view.kind === "silent") holder.read = view;
  else {
    const parsed = agentStatusSchema.safeParse(JSON.parse(view.text));
    if (!parsed.success) invalid(parsed.error.issues[0]?.message ?? "not a /status body");
    holder.read = parsed.success ? { kind: "status", status: parsed.data } : null;
  }
  return holder.read;
}

/** Warns, once per line, that an agent pushed a line that is not a /status body. */
export const warnUnreadable = (log: Logger, namespace: string, pod: string) => (issue: string) =>
  log.warn("agent pushed an unreadable status line", { namespace, pod, issue });

/** Presence on this thread: the core, its views read where they are asked for (tests). */
export function withReading(core: PresenceCore, log: Logger): PresenceCore & Presence {
  return {
    ...core,
    // Views are read where asked, not mirrored: which changed is not tracked (observe reads every pod).
    takeChanged: () => null,
    pushed(pod: WatchedPod): PushedView | null {
      const holder = core.holder(pod);
      return holder ? readView(holder, warnUnreadable(log, pod.namespace, pod.name)) : null;
    },
  };
}
