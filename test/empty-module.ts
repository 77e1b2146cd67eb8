// Stand-in for the `server-only` guard package under Vitest and tsx (see STYLE.md, Operator).
export {};
