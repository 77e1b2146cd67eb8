import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { VersionDiff } from "./version-diff";

describe("VersionDiff", () => {
  it("labels added and removed lines for screen readers and counts them", () => {
    const html = renderToStaticMarkup(
      <VersionDiff
        from={1}
        to={2}
        lines={[
          { kind: "same", text: "restartPolicy:", fromLine: 1, toLine: 1 },
          { kind: "removed", text: "  evalPeriodSeconds: 30", fromLine: 2, toLine: null },
          { kind: "added", text: "  evalPeriodSeconds: 60", fromLine: null, toLine: 2 },
        ]}
      />,
    );
    expect(html).toContain("1 line added, 1 removed from version 1 to 2.");
    expect(html).toContain('aria-label="Changes from version 1 to version 2"');
    expect(html).toMatch(/data-kind="removed".*removed: <\/span> {2}evalPeriodSeconds: 30/);
    expect(html).toMatch(/data-kind="added".*added: <\/span> {2}evalPeriodSeconds: 60/);
    expect(html).not.toContain("unchanged: ");
  });

  it("says when two versions are the same", () => {
    const html = renderToStaticMarkup(
      <VersionDiff from={2} to={2} lines={[{ kind: "same", text: "a: 1", fromLine: 1, toLine: 1 }]} />,
    );
    expect(html).toContain("Versions 2 and 2 are the same.");
  });
});
