/**
 * The time a log line was written, when it carries one (the formats training logs print):
 * - ISO 8601 with `T` or a space (or `/` between the date's parts, as mmengine prints), optional fraction
 *   (`.` or `,`) and zone, optionally in brackets (`2026-03-01T12:00:01.123Z`, `[2026-03-01 12:00:01,123]`,
 *   python logging's `2026-03-01 12:00:01,123`), also behind a Ray worker's `(name pid=N)` and up to three
 *   bracketed tags (`[titan] 2026-…`, `[rank0]:[titan] 2026-…`, `[INFO] 2021-12-08 …`), or inside a
 *   bracket after a level word (`[INFO 2020-06-08 05:26:34]`, `[INFO|2024-…`, `[NeMo I 2025-…`);
 * - the month-first date of Hugging Face's example scripts: `02/21/2022 13:46:14 - INFO - …`;
 * - `dmesg -T` and ctime stamps: `[Fri Apr  5 21:29:39 2024] NVRM: …`;
 * - glog headers, as torch and torchrun print them: `E0323 21:57:08.583000 1234 file.py:12]`, also
 *   bracketed and behind tags (`[rank0]:[E1123 00:52:57.123456789 ProcessGroupNCCL.cpp:616]`,
 *   `[default0]:[rank12]:[E817 …`). torch's c10 logger prints the month unpadded (`[E318 07:39:53…` is
 *   March 18): three digits are M DD, four are MM DD, so `E1123` is November 23;
 * - syslog and journald: `Dec  2 10:43:35 host kernel: …`;
 * - epoch seconds (`1772366401.5 …`).
 * A time without a zone is read as UTC. glog and syslog print no year: the year is the one of the line
 * before that had one (or `year` when none did), moved on by one where the date would otherwise run
 * backwards by more than half a year (a log crossing New Year). Fixed patterns of ours (not user input),
 * anchored at the line's start.
 */
const TAGS = String.raw`^\s*(?:\([^()]{1,60}\)\s*)?(?:\[[^\]\s]{1,40}\]:?\s*){0,3}`;
const ISO = new RegExp(
  `${TAGS}(?:\\[(?:[A-Za-z]{1,10}[ |]){0,2})?(\\d{4})[-/](\\d{2})[-/](\\d{2})[T ](\\d{2}):(\\d{2}):(\\d{2})(?:[.,](\\d{1,9}))?\\s?(Z|[+-]\\d{2}:?\\d{2})?\\]?`,
);
const MONTH_FIRST = /^\s*(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})\s/;
const MONTH_NAME = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const CTIME = new RegExp(
  String.raw`^\s*\[?(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH_NAME} {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})\b`,
);
/** Month 1–12 unpadded or padded, then a two-digit day: `E318` is 3/18, `E0318` too, `E1123` is 11/23. */
const GLOG = new RegExp(
  String.raw`${TAGS}\[?[IWEF](0?[1-9]|1[0-2])(0[1-9]|[12][0-9]|3[01]) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?[\s\]]`,
);
const SYSLOG = new RegExp(String.raw`^\s*${MONTH_NAME} {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2})\s`);
const EPOCH = /^\s*\[?(1\d{9})(?:\.(\d{1,6}))?\]?\s/;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const HALF_YEAR_MS = 183 * 24 * 3600 * 1000;

function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || zone === "Z") return 0;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
}

const fractionMs = (fraction: string | undefined) =>
  fraction === undefined ? 0 : Number(`0.${fraction}`) * 1000;

type Clock = { month: number; day: number; h: string; m: string; s: string; fraction?: string | undefined };

/** A time read without its year. */
function yearless(clock: Clock, year: number): number | null {
  const at =
    Date.UTC(year, clock.month - 1, clock.day, Number(clock.h), Number(clock.m), Number(clock.s)) +
    fractionMs(clock.fraction);
  return Number.isFinite(at) && clock.month >= 1 && clock.month <= 12 ? at : null;
}

function yearlessClock(line: string): Clock | null {
  const glog = GLOG.exec(line);
  if (glog) {
    const [, mo, d, h = "", m = "", s = "", fraction] = glog;
    return { month: Number(mo), day: Number(d), h, m, s, fraction };
  }
  const syslog = SYSLOG.exec(line);
  if (syslog) {
    const [, name = "", d, h = "", m = "", s = ""] = syslog;
    return { month: MONTHS.indexOf(name) + 1, day: Number(d), h, m, s };
  }
  return null;
}

/** A full timestamp (ISO, month-first, ctime or epoch) at the line's start, or null. */
function fullTimestamp(line: string): number | null {
  const iso = ISO.exec(line);
  if (iso) {
    const [, y, mo, d, h, mi, s, fraction, zone] = iso;
    const at =
      Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) + fractionMs(fraction);
    return Number.isFinite(at) ? at - zoneOffsetMs(zone) : null;
  }
  const monthFirst = MONTH_FIRST.exec(line);
  if (monthFirst) {
    const [, mo, d, y, h, mi, s] = monthFirst;
    const at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    return Number(mo) >= 1 && Number(mo) <= 12 ? at : null;
  }
  const ctime = CTIME.exec(line);
  if (ctime) {
    const [, name = "", d, h, mi, s, y] = ctime;
    return Date.UTC(Number(y), MONTHS.indexOf(name), Number(d), Number(h), Number(mi), Number(s));
  }
  const epoch = EPOCH.exec(line);
  if (epoch) return Number(epoch[1]) * 1000 + fractionMs(epoch[2]);
  return null;
}

/** The line's time; a line without a year (glog, syslog) is read in `year` (default: the current UTC year). */
export function lineTimestamp(line: string, year = new Date().getUTCFullYear()): number | null {
  const full = fullTimestamp(line);
  if (full !== null) return full;
  const clock = yearlessClock(line);
  return clock === null ? null : yearless(clock, year);
}

/** Every line's time (null: none printed), years of yearless lines carried from the lines around them. */
export function lineTimestamps(lines: readonly string[], year: number): (number | null)[] {
  let current = year;
  let previous: number | null = null;
  return lines.map((line) => {
    const full = fullTimestamp(line);
    if (full !== null) {
      current = new Date(full).getUTCFullYear();
      previous = full;
      return full;
    }
    const clock = yearlessClock(line);
    if (clock === null) return null;
    let at = yearless(clock, current);
    if (at !== null && previous !== null && previous - at > HALF_YEAR_MS) {
      current += 1;
      at = yearless(clock, current);
    }
    if (at !== null) previous = at;
    return at;
  });
}
