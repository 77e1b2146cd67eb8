/**
 * The time a log line was written, when it starts with one (the formats of reference/log-formats.md):
 * ISO 8601 with `T` or a space, optional fraction (`.` or `,`) and zone, optionally in brackets
 * (`2026-03-01T12:00:01.123Z`, `[2026-03-01 12:00:01,123]`, python logging's `2026-03-01 12:00:01,123`),
 * or epoch seconds (`1772366401.5 …`). A time without a zone is read as UTC. Fixed patterns of ours (not
 * user input), anchored at the line's start.
 */
const ISO =
  /^\s*\[?(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s?(Z|[+-]\d{2}:?\d{2})?\]?/;
const EPOCH = /^\s*\[?(1\d{9})(?:\.(\d{1,6}))?\]?\s/;

function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || zone === "Z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
}

export function lineTimestamp(line: string): number | null {
  const iso = ISO.exec(line);
  if (iso) {
    const [, y, mo, d, h, mi, s, fraction, zone] = iso;
    const ms = fraction === undefined ? 0 : Number(`0.${fraction}`) * 1000;
    const at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) + ms;
    return Number.isFinite(at) ? at - zoneOffsetMs(zone) : null;
  }
  const epoch = EPOCH.exec(line);
  if (epoch) return Number(epoch[1]) * 1000 + (epoch[2] === undefined ? 0 : Number(`0.${epoch[2]}`) * 1000);
  return null;
}
