/** This process's environment with `extra` over it, for child processes that tests start (the CLI). */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
