import { describe, expect, it } from "vitest";
import { parseJobYaml } from "@/server/domain/job-spec/parse-job";
import { demoJobYaml } from "@/server/operator/testing/jobs";
import { isWatched, linesAfter, parseRankLine, watchesAllRanks } from "./output";

const job = (yaml: string) => {
  const parsed = parseJobYaml(yaml);
  if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join("; "));
  return parsed.job;
};

describe("a pod's output as the shadow reads it", () => {
  it("splits the agent's rank prefix from the line", () => {
    expect(parseRankLine("[default3]:step=12 loss=2.1")).toEqual({ localRank: 3, text: "step=12 loss=2.1" });
    expect(parseRankLine("[default0]:")).toEqual({ localRank: 0, text: "" });
    expect(parseRankLine("agent: started")).toBeNull();
    expect(parseRankLine("[rank3]:step=1")).toBeNull();
  });

  it("watches local rank 0 only unless the job opts into every rank", () => {
    const plain = job(demoJobYaml({ name: "a", nodes: 1, ranks: 2 }));
    expect(watchesAllRanks(plain)).toBe(false);
    expect([0, 1].map((rank) => isWatched(rank, false))).toEqual([true, false]);
    const flagged = job(
      demoJobYaml({ name: "b", nodes: 1, ranks: 2 }).replace(
        '"--shutdown-timeout", "5"',
        '"--shutdown-timeout", "5", "--log-rules-all-ranks"',
      ),
    );
    expect(watchesAllRanks(flagged)).toBe(true);
    const byEnv = job(
      demoJobYaml({ name: "c", nodes: 1, ranks: 2 }).replace(
        "              resources:",
        '              env:\n                - name: REBOUND_LOG_RULES_ALL_RANKS\n                  value: "true"\n              resources:',
      ),
    );
    expect(watchesAllRanks(byEnv)).toBe(true);
    expect(isWatched(1, true)).toBe(true);
  });

  it("reads only the lines after the previous read's last ones", () => {
    const first = Array.from({ length: 30 }, (_, n) => `line ${n}`);
    const second = [...first.slice(10), "line 30", "line 31"];
    expect(linesAfter(first, second)).toEqual(["line 30", "line 31"]);
    expect(linesAfter(first, first)).toEqual([]);
    expect(linesAfter([], ["a", "b"])).toEqual(["a", "b"]);
  });

  it("keeps repeated lines apart by the lines around them, and reads all when the tail moved past", () => {
    const seen = ["x", "tick", "tick"];
    expect(linesAfter(seen, ["x", "tick", "tick", "tick"])).toEqual(["tick"]);
    expect(linesAfter(["gone 1", "gone 2"], ["new 1", "new 2"])).toEqual(["new 1", "new 2"]);
  });
});
