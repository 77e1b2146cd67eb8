import { readFileSync, statSync } from "node:fs";

/**
 * Fault injection for the demo trainer, per rank.
 *
 * DEMO_FAULT: comma-separated `kind[@cond[:cond…]]`, conditions `step=N` (at the first step >= N, default
 * at once), `rank=R` (global RANK, default every rank), `restart=N|any` (JOB_RESTART_COUNT, default 0, so
 * a restarted worker does not fail again). E.g. `crash@step=20:rank=3`, `slow@step=5:rank=1:restart=any`.
 *
 * Control file (JSON `{"kind": "crash"|"hang"|"nan"|"slow"|"none", "rank": 3 | null, "id": "…"}`), polled
 * every step: each id is applied once per process, to the named RANK or (null) to every rank. A command
 * written before this process started is ignored, so a restarted worker does not replay the fault that
 * ended its predecessor. "none" ends a hang, nan or slow mode.
 *
 * Kinds: crash = exit 1 with a message on stderr; hang = stop printing but stay alive; nan = print
 * loss=nan; slow = throughput ÷20 and steps ×5 longer.
 */

export const FAULT_KINDS = ["crash", "hang", "nan", "slow", "none"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export type ScheduledFault = { kind: FaultKind; step: number; rank: number | null; restart: number | null };

const isKind = (text: string): text is FaultKind => (FAULT_KINDS as readonly string[]).includes(text);

function applyCondition(fault: ScheduledFault, condition: string): void {
  const [key, value = ""] = condition.split("=");
  const number = /^[0-9]{1,9}$/.test(value) ? Number(value) : null;
  if (key === "restart" && value === "any") fault.restart = null;
  else if (number === null) throw new Error(`DEMO_FAULT: bad condition "${condition}"`);
  else if (key === "step") fault.step = number;
  else if (key === "rank") fault.rank = number;
  else if (key === "restart") fault.restart = number;
  else throw new Error(`DEMO_FAULT: unknown condition "${key}" (step, rank, restart)`);
}

export function parseDemoFault(text: string): ScheduledFault[] {
  return text
    .split(",")
    .filter((part) => part.trim() !== "")
    .map((part) => {
      const [kind = "", conditions = ""] = part.trim().split("@");
      if (!isKind(kind)) throw new Error(`DEMO_FAULT: unknown kind "${kind}" (crash, hang, nan, slow)`);
      const fault: ScheduledFault = { kind, step: 0, rank: null, restart: 0 };
      for (const condition of conditions.split(":").filter(Boolean)) applyCondition(fault, condition);
      return fault;
    });
}

export type Command = { kind: FaultKind; rank: number | null; id: string };

function parseCommand(text: string): Command | null {
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null) return null;
  const { kind, rank = null, id } = value as Record<string, unknown>;
  const rankOk = rank === null || (typeof rank === "number" && Number.isInteger(rank));
  if (typeof kind !== "string" || !isKind(kind) || !rankOk || typeof id !== "string") return null;
  return { kind, rank: rank as number | null, id };
}

/** Polls the control file; returns a command for this rank that was not applied before, or null. */
export function createControlPoller(input: { file: string; rank: number; startedAt: number }) {
  const seen = new Set<string>();
  let lastMtime = -1;
  return (): Command | null => {
    try {
      const { mtimeMs } = statSync(input.file);
      if (mtimeMs === lastMtime) return null;
      const command = parseCommand(readFileSync(input.file, "utf8"));
      lastMtime = mtimeMs;
      if (command === null || seen.has(command.id) || mtimeMs < input.startedAt) return null;
      seen.add(command.id);
      return command.rank === null || command.rank === input.rank ? command : null;
    } catch {
      return null; // no file yet, or caught mid-write: try again next step
    }
  };
}
