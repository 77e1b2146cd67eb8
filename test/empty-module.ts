// Stand-in for the `server-only` guard package under Vitest and tsx: its default entry throws outside Next's
// react-server build, and modules the operator also imports must load under plain Node.
export {};
