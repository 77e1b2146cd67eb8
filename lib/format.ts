/** Formats a quota amount for its resource: GPUs and cores as counts, memory in GiB. */
export function formatQuantity(resource: string, amount: number): string {
  if (resource === "memory")
    return `${(amount / 2 ** 30).toLocaleString("en-US", { maximumFractionDigits: 1 })} GiB`;
  return amount.toLocaleString("en-US", { maximumFractionDigits: 3 });
}

export function resourceLabel(resource: string): string {
  switch (resource) {
    case "nvidia.com/gpu":
      return "GPUs";
    case "cpu":
      return "CPU cores";
    case "memory":
      return "Memory";
    default:
      return resource;
  }
}
