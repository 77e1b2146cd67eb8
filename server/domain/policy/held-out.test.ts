import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadCorpus } from "./log-corpus/corpus";
import { scoreTable, scoreTemplate } from "./log-corpus/measure";
import { POLICY_TEMPLATES } from "./templates";

/**
 * A held-out set (log-corpus-held-out/): public lines collected apart from the corpus and measured once with
 * the templates as they were, never tuned on. It says how the templates do on lines nobody fitted them to
 * (docs/policies.md, "Shipped templates, measured on real logs"). Printed each run. Fails on a false fire, or when a template finds fewer
 * of these lines than it did when the set was measured (2026-12-07): widening may raise the figures, never
 * lower them. Its lines are kept out of the corpus, so the corpus test never sees them.
 */

const heldOut = loadCorpus(path.join(import.meta.dirname, "log-corpus-held-out"));
const scores = POLICY_TEMPLATES.map((template) => scoreTemplate(template, heldOut.lines));

/** Lines each template found when the set was measured, before any change (docs/policies.md). */
const FOUND_WHEN_MEASURED: Record<string, number> = {
  hang: 29,
  "start-cut-off": 29,
  "nan-loss": 8,
  "loss-spike": 10,
  "low-throughput": 4,
  "cuda-oom": 8,
  "nccl-timeout": 9,
  "nccl-failure": 14,
  "gpu-hardware": 10,
  "checkpoint-overdue": 10,
};

describe("the held-out set", () => {
  it("is apart from the corpus: no line or URL in both", () => {
    const corpus = loadCorpus();
    const texts = new Set(corpus.lines.map((line) => line.text));
    const urls = new Set(corpus.lines.map((line) => line.url));
    console.log(
      `[held-out] ${heldOut.lines.length} lines from ${new Set(heldOut.lines.map((line) => line.url)).size} URLs\n${scoreTable(scores)}`,
    );
    expect(heldOut.lines.length).toBeGreaterThanOrEqual(100);
    expect(heldOut.lines.filter((line) => texts.has(line.text) || urls.has(line.url))).toEqual([]);
  });

  it.each(scores.map((score) => [score.template, score] as const))(
    "%s fires on no harmless line and finds at least what it found when measured",
    (template, score) => {
      expect(score.falseFires.map((line) => `${line.text} (${line.url})`)).toEqual([]);
      expect(score.found).toBeGreaterThanOrEqual(FOUND_WHEN_MEASURED[template] ?? Number.POSITIVE_INFINITY);
    },
  );
});
