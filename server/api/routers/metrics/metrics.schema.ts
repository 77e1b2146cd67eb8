import { z } from "zod";
import { jobRefSchema } from "@/server/domain/operator-api/contract";
import { jobSeriesNameSchema } from "@/server/metrics/series";

/** A job's charts: which series, over the last `windowMs` (1 min … 24 h), with one rank's line where asked. */
export const jobChartsInputSchema = z.strictObject({
  job: jobRefSchema,
  series: z.array(jobSeriesNameSchema).min(1).max(jobSeriesNameSchema.options.length),
  windowMs: z
    .int()
    .min(60_000)
    .max(24 * 3600 * 1000)
    .default(15 * 60 * 1000),
  rank: z.int().min(0).nullable().default(null),
});
export type JobChartsInput = z.infer<typeof jobChartsInputSchema>;
