import { parsePythonFloat } from "../domain/log-rules/python-float";

/**
 * Training progress read from a log line's `step=<int>`, `loss=<float>` and `throughput=<float>` tokens
 * (tokens are separated by whitespace, "," or ";"; floats as Python's float() reads them, so `loss=nan`
 * and `loss=inf` count). Hand-written: no user pattern is involved.
 */

export type LineMetrics = { step?: number; loss?: number; throughput?: number };

const SEPARATOR = /[\s,;]+/;
const DIGITS = /^[0-9]{1,15}$/;

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

export function parseLineMetrics(line: string): LineMetrics {
  const metrics: LineMetrics = {};
  if (!line.includes("=")) return metrics;
  for (const token of line.split(SEPARATOR)) readToken(metrics, token);
  return metrics;
}
