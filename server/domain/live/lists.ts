import type { ClusterNodeRow, JobRow } from "@/server/domain/jobs/pages";
import { keyedList } from "./list-diff";

/** The live lists' keys, one definition for the stream that diffs and the page that applies. */
export const jobRowList = keyedList<JobRow>((row) => `${row.namespace}/${row.name}`);
export const nodeRowList = keyedList<ClusterNodeRow>((node) => node.name);
