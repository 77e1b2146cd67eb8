import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * The corpus of real training-log lines (one JSON file per source in this folder), each line copied as
 * printed from a public bug report, pull request, documentation page or CI log, with that page's URL, and
 * labelled with what a shipped template should make of it. Test support: read by log-corpus.test.ts and
 * dry-run-corpus.test.ts only (the product never reads it).
 *
 * Kinds: `progress` (a training or evaluation step report), `nan` (numerics diverged), `nccl-timeout`,
 * `nccl-failure` (transport or CUDA failure without a timeout), `gpu-hardware` (by NVIDIA's Xid catalog),
 * `cuda-oom`, `checkpoint` (a checkpoint save reported), `harmless` (must fire nothing: look-alikes).
 * Values read from the line by a person, where it shows them: `loss`, `step`, `tokensPerSecond`.
 */

export const CORPUS_KINDS = [
  "progress",
  "nan",
  "nccl-timeout",
  "nccl-failure",
  "gpu-hardware",
  "cuda-oom",
  "checkpoint",
  "harmless",
] as const;
export type CorpusKind = (typeof CORPUS_KINDS)[number];

const url = z.url().refine((text) => text.startsWith("https://"), "an https URL");
const lossValue = z.union([z.number(), z.enum(["nan", "inf", "-inf"])]);

const lineSchema = z.strictObject({
  kind: z.enum(CORPUS_KINDS),
  text: z
    .string()
    .min(1)
    .refine((text) => !text.includes("\n"), "one line"),
  url,
  loss: lossValue.optional(),
  step: z.number().int().nonnegative().optional(),
  tokensPerSecond: z.number().nonnegative().optional(),
  progress: z.boolean().optional(),
  note: z.string().optional(),
});

const excerptSchema = z.strictObject({
  title: z.string().min(1),
  kind: z.union([z.literal("healthy"), z.literal("hang"), z.enum(CORPUS_KINDS)]),
  url,
  lines: z.array(z.string()).min(2),
  note: z.string().optional(),
});

const fileSchema = z.strictObject({
  source: z.string().min(1),
  lines: z.array(lineSchema),
  excerpts: z.array(excerptSchema),
});

export type CorpusLine = z.infer<typeof lineSchema> & { source: string };
export type CorpusExcerpt = z.infer<typeof excerptSchema> & { source: string };
export type Corpus = { sources: string[]; lines: CorpusLine[]; excerpts: CorpusExcerpt[] };

export const CORPUS_DIR = path.join(import.meta.dirname, ".");

/** The JSON files of a corpus folder, in name order. */
export function corpusFiles(dir = CORPUS_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((name) => path.join(dir, name));
}

/** One file of a corpus, checked: a bad file throws naming the file and the field. */
export function loadCorpusFile(file: string): Corpus {
  const parsed = fileSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${path.basename(file)}: ${z.prettifyError(parsed.error)}`);
  const { source } = parsed.data;
  return {
    sources: [source],
    lines: parsed.data.lines.map((line) => ({ ...line, source })),
    excerpts: parsed.data.excerpts.map((excerpt) => ({ ...excerpt, source })),
  };
}

/** Every file of the corpus, checked: a bad file throws naming the file and the field. */
export function loadCorpus(dir = CORPUS_DIR): Corpus {
  const corpus: Corpus = { sources: [], lines: [], excerpts: [] };
  for (const file of corpusFiles(dir)) {
    const one = loadCorpusFile(file);
    corpus.sources.push(...one.sources);
    corpus.lines.push(...one.lines);
    corpus.excerpts.push(...one.excerpts);
  }
  return corpus;
}
