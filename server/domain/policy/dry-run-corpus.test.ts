import { describe, expect, it } from "vitest";
import { runPolicySchema } from "@/server/domain/job-spec/run-policy.schema";
import { isProgressLine } from "@/server/domain/log-rules/progress";
import { dryRun } from "./dry-run";
import { type CorpusExcerpt, loadCorpus } from "./log-corpus/corpus";
import { parsePolicyYaml } from "./policy-yaml";
import { POLICY_TEMPLATES } from "./templates";
import { lineTimestamps } from "./timestamps";
import type { DryRunInput } from "./types";

/**
 * Every shipped rule at once, dry-run over the corpus's multi-line excerpts of real runs, one framework
 * format at a time (log-corpus/):
 * - a healthy run, its lines replayed for 30 simulated minutes, raises no fault;
 * - the same run whose progress stops after 10 minutes (its other lines go on) is found hung by StepHang
 *   within its window + 1 s of the last progress line;
 * - an excerpt that ends in a fault is found by that fault's rule.
 */

/** The frameworks whose progress formats the hang and start cut-off templates are written for. */
const FRAMEWORKS = [
  "hf-transformers",
  "lightning-nemo",
  "deepspeed",
  "megatron",
  "torchtitan",
  "nanogpt-litgpt",
];
const START = Date.UTC(2026, 2, 1, 12, 0, 0);
const SPACING_MS = 5000;
const MINUTE = 60_000;

const allRules = POLICY_TEMPLATES.flatMap((template) => {
  const parsed = parsePolicyYaml(template.yaml);
  if (!parsed.ok) throw new Error(`${template.id}: ${JSON.stringify(parsed.errors)}`);
  return parsed.runPolicy.logMonitoringConfiguration ?? [];
});
const hangRule = allRules.find((rule) => rule.name === "StepHang");
const HANG_WINDOW_MS = (hangRule?.expectedRecurringFrequencyInSeconds ?? 0) * 1000;
const runPolicy = runPolicySchema.parse({ logMonitoringConfiguration: allRules });

/** The excerpt's lines replayed in order, one every SPACING_MS, for `ms`; `keep` picks the lines. */
function replay(
  excerpt: CorpusExcerpt,
  opts: { from: number; ms: number; keep?: (line: string) => boolean },
) {
  const lines = excerpt.lines.filter((line) => line !== "" && (opts.keep?.(line) ?? true));
  const texts: string[] = [];
  const arrivals: number[] = [];
  for (let at = opts.from, i = 0; at < opts.from + opts.ms && lines.length > 0; at += SPACING_MS, i++) {
    texts.push(lines[i % lines.length] ?? "");
    arrivals.push(at);
  }
  return { texts, arrivals };
}

function run(input: { texts: string[]; arrivals: number[]; endAt?: number }) {
  const dry: DryRunInput = {
    runPolicy,
    logText: input.texts.join("\n"),
    arrivals: input.arrivals,
    rulesStartedAt: START,
    ...(input.endAt === undefined ? {} : { endAt: input.endAt }),
  };
  return dryRun(dry);
}

const corpus = loadCorpus();
const healthy = corpus.excerpts.filter(
  (excerpt) => excerpt.kind === "healthy" && excerpt.lines.some(isProgressLine),
);
const FAULT_RULES: Record<string, readonly string[]> = {
  nan: ["NaNLoss"],
  "nccl-timeout": ["NcclTimeout"],
  "nccl-failure": ["NcclFailure"],
  "gpu-hardware": ["GpuHardware"],
  "cuda-oom": ["CudaOOM"],
  hang: ["StepHang", "NcclTimeout"],
};
const faulty = corpus.excerpts.filter((excerpt) => FAULT_RULES[excerpt.kind] !== undefined);

describe("every shipped rule on real runs", () => {
  it("has a healthy run in each framework's format", () => {
    const formats = new Set(healthy.map((excerpt) => excerpt.source));
    console.log(
      `[dry-run corpus] healthy runs: ${healthy.length} in ${formats.size} formats: ${[...formats].join(", ")}`,
    );
    for (const framework of FRAMEWORKS) expect([...formats]).toContain(framework);
    expect(HANG_WINDOW_MS).toBeGreaterThan(0);
  });

  describe.each(healthy.map((excerpt) => [`${excerpt.source}: ${excerpt.title}`, excerpt] as const))(
    "%s",
    (_title, excerpt) => {
      it("raises no fault over 30 simulated minutes", () => {
        const replayed = replay(excerpt, { from: START, ms: 30 * MINUTE });
        const result = run({ ...replayed, endAt: START + 30 * MINUTE });
        expect(result.fault, excerpt.url).toBeNull();
        expect(result.rules.find((rule) => rule.name === "StepHang")?.matchCount).toBeGreaterThan(0);
      });

      it("is found hung within the window + 1 s once its progress stops", () => {
        const before = replay(excerpt, { from: START, ms: 10 * MINUTE });
        const lastProgress = before.arrivals.findLast((_, i) => isProgressLine(before.texts[i] ?? "")) ?? 0;
        const from = (before.arrivals.at(-1) ?? START) + SPACING_MS;
        const after = replay(excerpt, { from, ms: 10 * MINUTE, keep: (line) => !isProgressLine(line) });
        const result = run({
          texts: [...before.texts, ...after.texts],
          arrivals: [...before.arrivals, ...after.arrivals],
        });
        expect(result.fault?.rule, excerpt.url).toBe("StepHang");
        const late = (result.fault?.at ?? 0) - lastProgress - HANG_WINDOW_MS;
        expect(late).toBeGreaterThan(0);
        expect(late).toBeLessThanOrEqual(1000);
      });
    },
  );

  // Its lines arrive SPACING_MS apart, as a live rank's output: by their own times a kernel log spans the
  // node's uptime (the Xid 79 excerpt opens with the driver loading 27 h before the fault), which puts the
  // start cut-off first; that is measured below, with the excerpts' own times.
  it.each(faulty.map((excerpt) => [`${excerpt.source}: ${excerpt.title}`, excerpt] as const))(
    "%s is found by its rule",
    (_title, excerpt) => {
      const arrivals = excerpt.lines.map((_, i) => START + i * SPACING_MS);
      const result = dryRun({
        runPolicy,
        logText: excerpt.lines.join("\n"),
        arrivals,
        rulesStartedAt: START,
      });
      expect(FAULT_RULES[excerpt.kind], `${excerpt.url}: ${result.fault?.reason}`).toContain(
        result.fault?.rule,
      );
    },
  );
});

/**
 * The excerpts pasted as they are, timed by the times their lines print (timestamps.ts), not by made-up
 * arrivals: torch's glog headers (month unpadded: `[rank4]:[E318 07:39:53.79…` is 18 March), `dmesg -T`,
 * ISO. A healthy run, played up to its last line, raises nothing; a real silence longer than a window is
 * found inside it, at the time the window ends.
 */
describe("real excerpts pasted with their own times", () => {
  const YEAR = new Date(START).getUTCFullYear();
  const ownTimes = (excerpt: CorpusExcerpt) =>
    lineTimestamps(excerpt.lines, YEAR).filter((time): time is number => time !== null);
  const timedHealthy = healthy.filter((excerpt) => ownTimes(excerpt).length >= 2);
  const find = (title: string) => {
    const excerpt = corpus.excerpts.find((candidate) => candidate.title.startsWith(title));
    if (excerpt === undefined) throw new Error(`no excerpt "${title}" in the corpus`);
    return excerpt;
  };

  it("has timestamped healthy runs", () => {
    expect(timedHealthy.length).toBeGreaterThanOrEqual(5);
  });

  it.each(timedHealthy.map((excerpt) => [`${excerpt.source}: ${excerpt.title}`, excerpt] as const))(
    "%s raises nothing up to its last line",
    (_title, excerpt) => {
      const times = ownTimes(excerpt);
      const result = dryRun({
        runPolicy,
        logText: excerpt.lines.join("\n"),
        startAt: START,
        endAt: times.at(-1),
      });
      expect(result.fault, excerpt.url).toBeNull();
      expect(result.start).toBe(times[0]);
      expect(result.outputEndedAt).toBeGreaterThanOrEqual(times.at(-1) ?? 0);
    },
  );

  it("finds the start cut-off inside a kernel log's real 27-hour silence, not after its last line", () => {
    // [Thu Apr  4 18:03:56 2024] driver loaded … [Fri Apr  5 21:29:39 2024] Xid 79: no progress in between.
    const excerpt = find("Xid 79 fallen off the bus, dmesg -T");
    const loaded = Date.UTC(2024, 3, 4, 18, 3, 56);
    const fallen = Date.UTC(2024, 3, 5, 21, 29, 39);
    const cutOff =
      (allRules.find((rule) => rule.name === "StartCutOff")?.expectedStartCutOffInSeconds ?? 0) * 1000;
    const result = dryRun({ runPolicy, logText: excerpt.lines.join("\n"), startAt: START });
    expect(result.start).toBe(loaded);
    expect(result.outputEndedAt).toBeGreaterThanOrEqual(fallen);
    expect(result.fault?.rule).toBe("StartCutOff");
    const late = (result.fault?.at ?? 0) - loaded - cutOff;
    expect(late).toBeGreaterThan(0);
    expect(late).toBeLessThanOrEqual(1000);
    expect(result.fault?.at).toBeLessThan(fallen);
  });

  // Months read off the lines by a person: E318 is 18 March, E626 26 June, E916 16 September.
  it.each([
    ["watchdog timeout sequence with [PG ID 2 PG GUID 9]", Date.UTC(YEAR, 2, 18, 7, 39, 53, 792)],
    ["NCCL watchdog timeouts on several ranks (torch 2.5+", Date.UTC(YEAR, 5, 26, 6, 24, 44, 903)],
    ["watchdog timeout takes the process down", Date.UTC(YEAR, 8, 16, 8, 53, 53, 863)],
  ])("%s (torch's unpadded month) faults at its own first line's time", (title, at) => {
    const excerpt = find(title);
    const stamped = excerpt.lines.filter((line) => /^\[rank\d+\]:\[E\d{3} /.test(line)).length;
    const result = dryRun({ runPolicy, logText: excerpt.lines.join("\n"), startAt: START });
    expect(stamped).toBeGreaterThan(0);
    expect(result.timestamped).toBe(stamped);
    expect(result.fault?.rule).toBe("NcclTimeout");
    expect(Math.floor(result.fault?.at ?? 0)).toBe(at);
  });
});
