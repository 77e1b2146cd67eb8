import { isProgressLine } from "../domain/log-rules/progress";
import { parsePythonFloat } from "../domain/log-rules/python-float";

/**
 * Training progress read from a log line, for the console's step, loss and throughput of a rank (not for
 * any fault: those are the log rules'). Hand-written: no user pattern is involved.
 * - `step=<int>`, `loss=<float>` and `throughput=<float>` tokens (separated by whitespace, "," or ";"),
 *   as the demo trainer prints them; floats as Python's float() reads them, so `loss=nan` counts;
 * - on a progress line (server/domain/log-rules/progress.ts) what the tokens did not give, in the shapes
 *   real frameworks print: the step of `step: 200`, `iteration 200/`, `iter 100:`, `"num_updates": 700`;
 *   the first loss (`loss:  6.1384`, `lm loss: 2.38E+00`, `{'loss': 2.05`, `loss train: 1.06`); tokens per
 *   second (`tps: 7,282`, separators read; `wps=8.9e+19`; `Tokens/s/device: 19222.1`; `tokens per gpu per
 *   second (tgs): 2069.5`; `1507 tokens/s`, `1771 toks/s`); Keras's `10/102 [=>…` and DeepSpeed's timer's
 *   `/global_step=170` steps.
 * The patterns are fixed (ours) and bounded, so a 16 KiB line costs a few microseconds.
 */

export type LineMetrics = { step?: number; loss?: number; throughput?: number };

const SEPARATOR = /[\s,;]+/;
const DIGITS = /^[0-9]{1,15}$/;

/** Where a line says its step, in order of preference (litgpt's `iter 46 step 1`: the step is 1). */
const STEPS = [
  /(?:^|[^\w.=/'-])(?:global_step|step)\b['"]?\s{0,4}[:=]?\s{0,16}\[?\s{0,8}(\d{1,15})\b/i,
  /(?:^|[^\w.=/'-])(?:current_steps|num_updates|iteration|iter)\b['"]?\s{0,4}[:=]?\s{0,16}\[?\s{0,8}(\d{1,15})\b/i,
  /(?:\||%)\s{0,4}(\d{1,15})\/\d{1,15} \[/,
  /\[\s{0,8}(\d{1,15})\/\d{1,15}\]\s/,
  /(?:^|\s)\d{1,15}\/(\d{1,15}), (?:RunningAvg|Curr)?SamplesPerSec=/,
  /^\s{0,8}(\d{1,15})\s{0,4}\|\s{0,4}loss\b/i,
  /^\s{0,8}(\d{1,15})\/\d{1,15} \[[=>.]/,
  /\/global_step=(\d{1,15})\b/,
];
const LOSS =
  /\b(?:lm |lm_|train |total |train_|total_|reduced_train_|mlm_)?loss\]?(?: train)?['"]?\s{0,4}[:=]?\s{0,16}['"]?([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf(?:inity)?)\b)/i;
const TOKENS_KEYED =
  /\b(?:tps|tgs|wps|tok\/s|tokens\/s(?:ec)?|tokens_per_second(?:_per_gpu)?|tokens per (?:gpu per )?second(?: \(tgs\))?)(?:\/device|\/gpu)?\s{0,4}[:=]?\s{0,16}(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:e[-+]?\d+)?)/i;
const TOKENS_UNIT = /(?:^|[\s:=(])(\d+(?:\.\d+)?) ?tok(?:en)?s?\/s(?:ec)?\b/i;

function readToken(metrics: LineMetrics, token: string): void {
  const eq = token.indexOf("=");
  if (eq <= 0) return;
  const key = token.slice(0, eq);
  const value = token.slice(eq + 1);
  switch (key) {
    case "step":
      if (DIGITS.test(value)) metrics.step = Number(value);
      return;
    case "loss":
    case "throughput": {
      const number = parsePythonFloat(value);
      if (number !== null) metrics[key] = number;
      return;
    }
    default:
      return;
  }
}

const first = (pattern: RegExp, line: string): string | undefined => pattern.exec(line)?.[1];

/** What a progress line says in a framework's own shape, where the tokens said nothing. */
function readProgressLine(metrics: LineMetrics, line: string): void {
  let step: string | undefined;
  for (const pattern of STEPS) {
    step = first(pattern, line);
    if (step !== undefined) break;
  }
  if (metrics.step === undefined && step !== undefined) metrics.step = Number(step);
  const loss = parsePythonFloat(first(LOSS, line));
  if (metrics.loss === undefined && loss !== null) metrics.loss = loss;
  const tokens = first(TOKENS_KEYED, line) ?? first(TOKENS_UNIT, line);
  if (metrics.throughput === undefined && tokens !== undefined)
    metrics.throughput = Number(tokens.replaceAll(",", ""));
}

/** `progress`: whether the line is a progress line, when the caller knows already. */
export function parseLineMetrics(line: string, progress = isProgressLine(line)): LineMetrics {
  const metrics: LineMetrics = {};
  if (line.includes("=")) for (const token of line.split(SEPARATOR)) readToken(metrics, token);
  if (progress) readProgressLine(metrics, line);
  return metrics;
}
