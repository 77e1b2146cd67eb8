/**
 * A module resolve hook for benchmarks run outside Next: `server-only` (imported by modules that must never
 * reach a browser bundle, server/services/wiring.ts) is Next's marker, resolved by Next's bundler, and is not
 * an installed package. Here it resolves to an empty module, as the vitest config aliases it for tests.
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === "server-only") return { url: "data:text/javascript,", shortCircuit: true };
  return nextResolve(specifier, context);
}
