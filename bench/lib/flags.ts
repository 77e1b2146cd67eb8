/** Benchmarks' `--name value` flags: string options with defaults, read back as checked integers. */
export function stringOptions<F extends string>(
  defaults: Readonly<Record<F, string>>,
): Record<F, { type: "string"; default: string }> {
  return Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [name, { type: "string" as const, default: value }]),
  ) as Record<F, { type: "string"; default: string }>;
}

/** `int(name, min)`: the flag's value as an integer of at least `min`, or an error naming the flag. */
export function integerReader<F extends string>(
  defaults: Readonly<Record<F, string>>,
  values: Partial<Record<string, unknown>>,
): (name: F, min: number) => number {
  return (name, min) => {
    const text = String(values[name] ?? defaults[name]);
    const value = Number(text);
    if (!Number.isInteger(value) || value < min)
      throw new Error(`--${name}: expected an integer >= ${min}, got ${text}`);
    return value;
  };
}
