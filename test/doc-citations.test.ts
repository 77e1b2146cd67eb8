import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { anchorOf, checkCitations, type ReadFile, type SourceFile } from "./doc-citations";

/**
 * Every citation in the code and docs leads somewhere in the repository: a cited docs page exists, and so
 * does the section (heading) or anchor it names; relative markdown links reach their page. Documents
 * outside the repository are never cited. The files are what git would commit (tracked, plus new files not
 * ignored); the check's own files are left out, since they spell the patterns out.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SCANNED = /\.(ts|tsx|mjs|cjs|js|prisma|ya?ml|md|go|py|sh)$|(^|\/)Dockerfile$/;
const SELF = new Set(["test/doc-citations.ts", "test/doc-citations.test.ts"]);

function repositoryFiles(): SourceFile[] {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return listed
    .split("\0")
    .filter((file) => SCANNED.test(file) && !file.startsWith("generated/") && !SELF.has(file))
    .filter((file) => existsSync(path.join(ROOT, file)))
    .map((file) => ({ path: file, text: readFileSync(path.join(ROOT, file), "utf8") }));
}

const readRepositoryFile: ReadFile = (repoPath) => {
  const full = path.join(ROOT, repoPath);
  return existsSync(full) ? readFileSync(full, "utf8") : null;
};

const PAGES: Record<string, string> = {
  "docs/a.md": "# Page A\n\n## The agent protocol\n\n```bash\n# not a heading\n```\n",
  "docs/b.md": "# Page B\n\nSee [A](a.md#the-agent-protocol) and [gone](c.md).\n",
};
const readPage: ReadFile = (repoPath) => PAGES[repoPath] ?? null;

describe("doc citations", () => {
  it("every cited docs page, section and link exists, and nothing outside the repository is cited", () => {
    const files = repositoryFiles();
    const result = checkCitations(files, readRepositoryFile);
    console.log(
      `doc citations: ${result.checked} checked (${result.withSection} naming a section or anchor) in ${files.length} files`,
    );
    expect(result.problems.map((problem) => `${problem.file}:${problem.line}: ${problem.message}`)).toEqual(
      [],
    );
    expect(result.checked).toBeGreaterThan(50);
  });

  it("names the file and line of a citation whose page or section does not exist", () => {
    const source = [
      '// fine: docs/a.md, "The agent protocol"',
      '/** wrong section: docs/a.md, "The agent protocl" */',
      "// no such page: docs/zzz.md",
      '// a heading inside a code fence is no section: docs/a.md, "not a heading"',
      "// docs/a.md#the-agent-protocol and docs/a.md#nope",
    ].join("\n");
    const result = checkCitations([{ path: "server/x.ts", text: source }], readPage);
    expect(result.checked).toBe(6);
    expect(result.problems.map(({ file, line }) => `${file}:${line}`)).toEqual([
      "server/x.ts:2",
      "server/x.ts:3",
      "server/x.ts:4",
      "server/x.ts:5",
    ]);
    expect(result.problems[0]?.message).toContain('no section "The agent protocl"');
  });

  it("reads a section continued on the next comment line, and refuses one split inside its quotes", () => {
    const continued = ' * as docs/a.md,\n * "The agent protocol" says';
    expect(checkCitations([{ path: "x.ts", text: continued }], readPage).problems).toEqual([]);
    const wrong = ' * as docs/a.md,\n * "The agent protocolo" says';
    expect(checkCitations([{ path: "x.ts", text: wrong }], readPage).problems).toHaveLength(1);
    const split = ' * as docs/a.md, "The agent\n * protocol" says';
    const problems = checkCitations([{ path: "x.ts", text: split }], readPage).problems;
    expect(problems.map((problem) => problem.message)).toEqual([
      "docs/a.md: keep the cited section on one line",
    ]);
  });

  it("follows relative markdown links with their anchors", () => {
    const files = Object.entries(PAGES).map(([file, text]) => ({ path: file, text }));
    const result = checkCitations(files, readPage);
    expect(result.problems).toEqual([{ file: "docs/b.md", line: 3, message: "docs/c.md does not exist" }]);
  });

  it("refuses mentions of documents outside the repository", () => {
    const lines = [
      "// see reference §2.2",
      "// reference 1.4",
      "// DESIGN.md",
      "// STYLE.md, Errors",
      "// (§5.1)",
    ];
    const result = checkCitations([{ path: "y.ts", text: `${lines.join("\n")}\n// fine` }], readPage);
    expect(result.problems.map((problem) => problem.line)).toEqual([1, 2, 3, 4, 5]);
  });

  it("makes GitHub's anchors", () => {
    expect(anchorOf("Choices where HyperPod's behaviour is not published")).toBe(
      "choices-where-hyperpods-behaviour-is-not-published",
    );
    expect(anchorOf("TV dashboards (`/tv`) and share tokens")).toBe("tv-dashboards-tv-and-share-tokens");
  });
});
