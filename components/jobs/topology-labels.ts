/**
 * The topology's node labels (topology-layout.ts): each node block is made wide enough for its label, and the
 * label is the node's whole name where the names are short (local-node-0). Long names (an EC2 node's
 * "ip-10-0-12-3.ec2.internal") would make every block wide, so a job's nodes are labelled by what tells them
 * apart: the start and end all names share (cut at a "-", "." or "_") become "…" ("…12-3…"). What is still
 * too long is cut in its middle. The full name is the block's title on hover (rank-topology.tsx).
 */

/** Shortens a label to `max` characters, keeping both ends ("ip-10-0-12-3…internal"): names differ at both. */
export function shortenLabel(label: string, max: number): string {
  if (label.length <= max) return label;
  if (max <= 1) return "…".slice(0, Math.max(0, max));
  const head = Math.ceil((max - 1) / 2);
  return `${label.slice(0, head)}…${label.slice(label.length - (max - 1 - head))}`;
}

/** Labels up to this many characters are shown whole; past it, the shared start and end are elided. */
export const MAX_LABEL_CHARS = 16;
const SEPARATORS = new Set(["-", ".", "_"]);

function sharedStart(names: readonly string[]): string {
  const [first = "", ...rest] = names;
  let length = first.length;
  for (const name of rest) {
    let i = 0;
    while (i < length && i < name.length && name[i] === first[i]) i += 1;
    length = i;
  }
  // Cut after the last separator inside it, so a label never starts mid-word ("…de-0").
  let cut = length;
  while (cut > 0 && !SEPARATORS.has(first[cut - 1] ?? "")) cut -= 1;
  return first.slice(0, cut);
}

const reversed = (text: string) => [...text].reverse().join("");

/** What tells `name` apart from the others that share `start` and `end`: "…12-3…". */
function distinguishing(name: string, start: string, end: string): string {
  const middle = name.slice(start.length, name.length - end.length);
  if (middle === "") return name;
  return `${start ? "…" : ""}${middle}${end ? "…" : ""}`;
}

/** Each distinct name's label; `chars` is the longest label's length (the blocks are sized to it). */
export function nodeLabels(names: readonly string[]): { labels: Map<string, string>; chars: number } {
  const distinct = [...new Set(names)];
  const longest = Math.max(0, ...distinct.map((name) => name.length));
  const whole = longest <= MAX_LABEL_CHARS || distinct.length < 2;
  const start = whole ? "" : sharedStart(distinct);
  const end = whole ? "" : reversed(sharedStart(distinct.map((name) => reversed(name.slice(start.length)))));
  const labels = new Map(
    distinct.map((name) => [name, shortenLabel(distinguishing(name, start, end), MAX_LABEL_CHARS)]),
  );
  return { labels, chars: Math.max(0, ...[...labels.values()].map((label) => label.length)) };
}
