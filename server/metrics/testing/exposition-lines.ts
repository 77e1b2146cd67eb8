/**
 * Text exposition format lines in a canonical form for comparing two renderings: blank lines dropped (the
 * format ignores them) and each sample's labels sorted by name (their order carries no meaning, and clients
 * differ: prom-client writes a histogram's `le` first, most others last). Everything else (names, HELP,
 * TYPE, label values with their escapes, sample values, line order) is kept as written.
 */

const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,?)/y;

function sortedLabels(line: string, start: number): { labels: string; end: number } {
  const pairs: string[] = [];
  let position = start;
  LABEL.lastIndex = position;
  for (let match = LABEL.exec(line); match !== null; match = LABEL.exec(line)) {
    pairs.push(`${match[1]}="${match[2]}"`);
    position = LABEL.lastIndex;
  }
  if (line[position] !== "}") throw new Error(`unparsable labels in: ${line}`);
  return { labels: `{${pairs.sort().join(",")}}`, end: position + 1 };
}

function canonicalLine(line: string): string {
  const brace = line.indexOf("{");
  if (line.startsWith("#") || brace < 0) return line;
  const { labels, end } = sortedLabels(line, brace + 1);
  return `${line.slice(0, brace)}${labels}${line.slice(end)}`;
}

export function canonicalLines(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map(canonicalLine);
}
