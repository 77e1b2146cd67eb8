/**
 * The rank log's search and follow rules (components/jobs/rank-log.tsx), pure so they are unit-tested:
 * the search is a plain, case-insensitive substring (never a regular expression: the text is the user's),
 * and the view follows new output while it is scrolled to the bottom.
 */

/** A piece of a line: `hit` where it is the searched text. */
export type LogSegment = { text: string; hit: boolean };

export type ShownLine<L> = { line: L; index: number; segments: LogSegment[] };

/**
 * The line cut where it contains `needle` (already lower-cased, non-empty), or null where it does not. A
 * line whose lower-case form differs in length (a few Unicode letters, e.g. "İ") is matched but shown as one
 * hit, since positions in the lower-case form do not map back to it.
 */
export function splitHits(text: string, needle: string): LogSegment[] | null {
  const lower = text.toLowerCase();
  if (!lower.includes(needle)) return null;
  if (lower.length !== text.length) return [{ text, hit: true }];
  const segments: LogSegment[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    if (at > from) segments.push({ text: text.slice(from, at), hit: false });
    segments.push({ text: text.slice(at, at + needle.length), hit: true });
    from = at + needle.length;
  }
  if (from < text.length) segments.push({ text: text.slice(from), hit: false });
  return segments;
}

/** The lines to show for `query` (trimmed; empty shows every line), each cut where the query occurs. */
export function searchLog<L extends { text: string }>(lines: readonly L[], query: string): ShownLine<L>[] {
  const needle = query.trim().toLowerCase();
  const shown: ShownLine<L>[] = [];
  lines.forEach((line, index) => {
    if (needle === "") {
      shown.push({ line, index, segments: [{ text: line.text, hit: false }] });
      return;
    }
    const segments = splitHits(line.text, needle);
    if (segments !== null) shown.push({ line, index, segments });
  });
  return shown;
}

/** Within this many CSS px of the bottom counts as at the bottom (zoom and sub-pixel scroll positions). */
export const FOLLOW_SLACK_PX = 8;

/** Whether a scroll box is at its bottom: the view then follows new lines. */
export function atBottom(box: { scrollTop: number; clientHeight: number; scrollHeight: number }): boolean {
  return box.scrollHeight - box.clientHeight - box.scrollTop <= FOLLOW_SLACK_PX;
}

/** The download of a rank's whole log (app/api/jobs/[namespace]/[name]/log/route.ts). */
export function rankLogDownloadHref(job: { namespace: string; name: string }, rank: number): string {
  return `/api/jobs/${encodeURIComponent(job.namespace)}/${encodeURIComponent(job.name)}/log?rank=${rank}`;
}
