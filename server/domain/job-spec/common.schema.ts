import { z } from "zod";

/**
 * Field builders shared by the job-spec schemas. Messages are phrased as "expected …"; the error converter
 * (job-spec-errors.ts) appends ", got <value>" so users see both what was wanted and what they wrote.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_LABEL_MAX = 63;

export const positiveIntSchema = z
  .int({ error: "expected a positive integer" })
  .min(1, { error: "expected a positive integer" });

export const nonNegativeIntSchema = z
  .int({ error: "expected a non-negative integer" })
  .min(0, { error: "expected a non-negative integer" });

export const dnsLabelSchema = z
  .string({ error: "expected a string" })
  .max(DNS_LABEL_MAX, { error: `expected at most ${DNS_LABEL_MAX} characters` })
  .regex(DNS_LABEL, {
    error: "expected a DNS-1123 label (lower-case letters, digits and '-', starting and ending alphanumeric)",
  });

export const stringMapSchema = z.record(
  z.string(),
  z.string({ error: 'expected a string (quote numbers and booleans, e.g. "true")' }),
);

/** Indices of entries whose key was already used by an earlier entry, with that earlier index. */
export function findDuplicates<T>(items: readonly T[], keyOf: (item: T) => string): [number, number][] {
  const firstIndex = new Map<string, number>();
  const duplicates: [number, number][] = [];
  items.forEach((item, index) => {
    const key = keyOf(item);
    const first = firstIndex.get(key);
    if (first === undefined) firstIndex.set(key, index);
    else duplicates.push([index, first]);
  });
  return duplicates;
}
