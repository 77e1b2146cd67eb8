/**
 * How long a job's events are kept (the local back end's; Kubernetes keeps its own, one hour by default):
 * identical events (same type, reason and message) within COLLAPSE_WINDOW_MS become one row with a count,
 * as Kubernetes' event correlator does (10 minutes); at most MAX_EVENTS_PER_RUN rows per job uid and none
 * older than MAX_EVENT_AGE_MS. Pruned on write: a new row trims its run's oldest rows and every expired one.
 */
export const COLLAPSE_WINDOW_MS = 10 * 60 * 1000;
export const MAX_EVENTS_PER_RUN = 200;
export const MAX_EVENT_AGE_MS = 7 * 24 * 60 * 60 * 1000;
