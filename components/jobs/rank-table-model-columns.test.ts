import { describe, expect, it } from "vitest";
import { RANK_COLUMNS } from "./rank-table-columns";
import {
  parseHiddenColumns,
  pinnedOffsets,
  tableWidth,
  toggleHidden,
  visibleColumns,
} from "./rank-table-model-columns";

const ids = (columns: ReadonlyArray<{ id: string }>) => columns.map((column) => column.id);

describe("the rank table's columns (issue 36 item 2)", () => {
  it("pins Rank and Health at the left, each stuck after the ones before it", () => {
    expect(ids(RANK_COLUMNS.filter((column) => column.pinned))).toEqual(["rank", "health"]);
    expect([...pinnedOffsets(RANK_COLUMNS)]).toEqual([
      ["rank", 0],
      ["health", 66],
    ]);
  });

  it("refuses a pinned column after an unpinned one", () => {
    const columns = [
      { id: "a", header: "A", width: 10, pinned: true },
      { id: "b", header: "B", width: 10 },
      { id: "c", header: "C", width: 10, pinned: true },
    ];
    expect(() => pinnedOffsets(columns)).toThrow("pinned column c must come before");
  });

  it("hides and shows columns, never Rank or Health, and the table narrows to what shows", () => {
    let hidden = toggleHidden([], "pod", RANK_COLUMNS);
    hidden = toggleHidden(hidden, "line", RANK_COLUMNS);
    hidden = toggleHidden(hidden, "health", RANK_COLUMNS);
    expect(hidden).toEqual(["pod", "line"]);
    const shown = visibleColumns(RANK_COLUMNS, hidden);
    expect(ids(shown)).toEqual([
      "rank",
      "health",
      "age",
      "step",
      "loss",
      "throughput",
      "restarts",
      "node",
      "rules",
      "straggler",
    ]);
    expect(tableWidth(shown)).toBe(tableWidth(RANK_COLUMNS) - 124 - 260);
    expect(toggleHidden(hidden, "pod", RANK_COLUMNS)).toEqual(["line"]);
  });

  it("reads the remembered choice, dropping what is unreadable, unknown or pinned", () => {
    expect(parseHiddenColumns(JSON.stringify(["pod", "rank", "nope", 3, "pod"]), RANK_COLUMNS)).toEqual([
      "pod",
    ]);
    expect(parseHiddenColumns("{not json", RANK_COLUMNS)).toEqual([]);
    expect(parseHiddenColumns('{"pod":true}', RANK_COLUMNS)).toEqual([]);
    expect(parseHiddenColumns(null, RANK_COLUMNS)).toEqual([]);
  });
});
