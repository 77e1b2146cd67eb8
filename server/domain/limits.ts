/**
 * The one request-size limit: the operator's API refuses a body above it (413, while reading), and a job
 * manifest may not exceed it either as written or once its YAML aliases are expanded.
 */
export const MAX_BODY_BYTES = 1024 * 1024;
