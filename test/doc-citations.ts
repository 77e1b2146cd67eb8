import path from "node:path";

/**
 * The citation check behind doc-citations.test.ts, pure so it can be tried on made-up files. A comment or
 * page cites a doc page as `docs/<page>.md`, optionally followed by `, "<Section heading>"` or by
 * `#<anchor>`; a markdown page also links to other pages with relative `[text](page.md#anchor)` links.
 * Each cited page must exist, and each cited section must be one of its headings (an anchor: one of its
 * headings' anchors). Mentions of documents outside the repository are refused outright.
 */

export type SourceFile = { path: string; text: string };
export type Problem = { file: string; line: number; message: string };
export type CheckResult = { checked: number; withSection: number; problems: Problem[] };
/** A repository file's text, or null when there is none. */
export type ReadFile = (repoPath: string) => string | null;

type Citation = { line: number; target: string; section: string | null; anchor: string | null };
type Headings = { titles: Set<string>; anchors: Set<string> };

/** Documents that are not in the repository, so a reader of the code cannot follow them. */
const FORBIDDEN: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /reference §/, why: 'cites "reference §", a document outside the repository' },
  { pattern: /\breference \d+\.\d+/, why: 'cites "reference N.M", a document outside the repository' },
  { pattern: /§\s?\d/, why: "cites a numbered section (§) of a document outside the repository" },
  { pattern: /\bDESIGN\.md\b/, why: "cites DESIGN.md, which is not in the repository" },
  { pattern: /\bSTYLE\.md\b/, why: "cites STYLE.md, which is not in the repository" },
  {
    pattern: /hyperpod-api\.md|log-formats\.md/,
    why: "cites a reference file that is not in the repository",
  },
  { pattern: /\[SRC-[A-Z]+\]/, why: "cites a source tag of a document outside the repository" },
  { pattern: /\/work\/shared/, why: "names /work/shared, which is not part of the repository" },
];

/** Between `docs/x.md,` and the quoted section: spaces, line breaks and comment leaders (`*`, `//`, `#`). */
const SECTION_GAP = String.raw`(?:\s|\/\/\/?|\*|#)*`;
const DOC_CITATION = new RegExp(
  String.raw`(?<![\w./-])(docs\/[\w/-]+\.md)(?:#([\w-]+))?(?:,${SECTION_GAP}"([^"\n]+)")?`,
  "g",
);
const SPLIT_SECTION = new RegExp(String.raw`^,${SECTION_GAP}"[^"\n]*$`, "m");
const MARKDOWN_LINK = /\]\(([^)\s#]*\.md)?(?:#([^)\s]+))?\)/g;

function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** A markdown page's headings (outside fenced code), as written and as anchors. */
export function headingsOf(markdown: string): Headings {
  const titles = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading?.[1]) titles.add(heading[1]);
  }
  return { titles, anchors: new Set([...titles].map(anchorOf)) };
}

function forbiddenMentions(file: SourceFile): Problem[] {
  const problems: Problem[] = [];
  file.text.split("\n").forEach((text, index) => {
    const found = FORBIDDEN.find(({ pattern }) => pattern.test(text));
    if (found) problems.push({ file: file.path, line: index + 1, message: found.why });
  });
  return problems;
}

function docCitations(file: SourceFile): { citations: Citation[]; problems: Problem[] } {
  const citations: Citation[] = [];
  const problems: Problem[] = [];
  for (const match of file.text.matchAll(DOC_CITATION)) {
    const [whole, target = "", anchor = null, section = null] = match;
    const line = lineAt(file.text, match.index);
    citations.push({ line, target, section, anchor });
    const after = file.text.slice(match.index + whole.length);
    if (section === null && SPLIT_SECTION.test(after.split("\n").slice(0, 2).join("\n"))) {
      problems.push({ file: file.path, line, message: `${target}: keep the cited section on one line` });
    }
  }
  return { citations, problems };
}

function markdownLinks(file: SourceFile): Citation[] {
  if (!file.path.endsWith(".md")) return [];
  const citations: Citation[] = [];
  for (const match of file.text.matchAll(MARKDOWN_LINK)) {
    const [, link, anchor = null] = match;
    if ((link === undefined && anchor === null) || link?.includes(":")) continue;
    const target = link === undefined ? file.path : path.posix.join(path.posix.dirname(file.path), link);
    citations.push({ line: lineAt(file.text, match.index), target, section: null, anchor });
  }
  return citations;
}

function problemOf(citation: Citation, headings: Headings | null): string | null {
  const { target, section, anchor } = citation;
  if (headings === null) return `${target} does not exist`;
  if (section !== null && !headings.titles.has(section)) {
    return `${target} has no section "${section}" (its sections: ${[...headings.titles].join("; ")})`;
  }
  if (anchor !== null && !headings.anchors.has(anchor))
    return `${target} has no heading with anchor #${anchor}`;
  return null;
}

function headingsReader(read: ReadFile): (target: string) => Headings | null {
  const cache = new Map<string, Headings | null>();
  return (target) => {
    if (!cache.has(target)) {
      const text = target.startsWith("../") ? null : read(target);
      cache.set(target, text === null ? null : headingsOf(text));
    }
    return cache.get(target) ?? null;
  };
}

/** A file's citations, each once (a markdown link to `docs/x.md` is also a `docs/x.md` mention). */
function citationsOf(file: SourceFile): { citations: Citation[]; problems: Problem[] } {
  const found = docCitations(file);
  const unique = new Map<string, Citation>();
  for (const citation of [...found.citations, ...markdownLinks(file)]) {
    const key = `${citation.line}:${citation.target}:${citation.section ?? ""}:${citation.anchor ?? ""}`;
    unique.set(key, citation);
  }
  return { citations: [...unique.values()], problems: found.problems };
}

/** Every citation in `files`, checked against the pages `read` returns. */
export function checkCitations(files: readonly SourceFile[], read: ReadFile): CheckResult {
  const headingsFor = headingsReader(read);
  const result: CheckResult = { checked: 0, withSection: 0, problems: [] };
  for (const file of files) {
    const { citations, problems } = citationsOf(file);
    result.problems.push(...forbiddenMentions(file), ...problems);
    for (const citation of citations) {
      result.checked += 1;
      if (citation.section !== null || citation.anchor !== null) result.withSection += 1;
      const message = problemOf(citation, headingsFor(citation.target));
      if (message !== null) result.problems.push({ file: file.path, line: citation.line, message });
    }
  }
  return result;
}
