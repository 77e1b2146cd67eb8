import type { ClusterNodeRow } from "@/server/services/jobs/cluster";
import type { JobRow } from "@/server/services/jobs/queries";
import { keyedList } from "./list-diff";

/** The live lists' keys, one definition for the stream that diffs and the page that applies. */
export const jobRowList = keyedList<JobRow>((row) => `${row.namespace}/${row.name}`);
export const nodeRowList = keyedList<ClusterNodeRow>((node) => node.name);
