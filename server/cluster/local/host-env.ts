/**
 * Local pods are processes on this machine: they inherit its environment (PATH, HOME, a Python or CUDA
 * set-up), as a container inherits its image's. The one place the local back end reads process.env.
 */
export function hostEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env };
}
