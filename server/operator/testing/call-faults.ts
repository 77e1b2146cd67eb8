/**
 * Failure injection for unit tests of the reconcilers: wraps a fake (cluster back end, agent client,
 * restart-event store) so that every method call is logged by name, and the Nth call of one method throws,
 * either before it takes effect or after (the effect happened, the answer was lost).
 */
export type Trip = { call: string; nth: number; when: "before" | "after" };

export class InjectedFailure extends Error {
  constructor(trip: Trip) {
    super(`injected failure ${trip.when} ${trip.call} #${trip.nth}`);
    this.name = "InjectedFailure";
  }
}

export type CallLog = {
  /** Every call, in order, as "<name>.<method>#<n>". */
  readonly trace: string[];
  /** Arms one failure (only one fires per arming). */
  arm(trip: Trip): void;
  /** Whether the armed failure fired. */
  fired(): boolean;
  /** Counts a call; returns the armed failure when this call is the one to fail. */
  note(call: string): Trip | null;
};

export function createCallLog(): CallLog {
  const trace: string[] = [];
  const counts = new Map<string, number>();
  let armed: Trip | null = null;
  let fired = false;
  return {
    trace,
    arm(trip) {
      armed = trip;
      fired = false;
    },
    fired: () => fired,
    note(call) {
      const nth = (counts.get(call) ?? 0) + 1;
      counts.set(call, nth);
      trace.push(`${call}#${nth}`);
      if (!armed || armed.call !== call || armed.nth !== nth) return null;
      fired = true;
      return armed;
    },
  };
}

function failing(log: CallLog, call: string, fn: (...args: unknown[]) => unknown) {
  return (...args: unknown[]): unknown => {
    const trip = log.note(call);
    if (trip?.when === "before") throw new InjectedFailure(trip);
    const result = fn(...args);
    if (trip?.when !== "after") return result;
    if (result instanceof Promise) return result.then(() => Promise.reject(new InjectedFailure(trip)));
    throw new InjectedFailure(trip);
  };
}

/** `target` with every method logged as `<name>.<method>` and failing when the log says so. */
export function instrument<T extends object>(target: T, name: string, log: CallLog): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      return failing(log, `${name}.${String(property)}`, (...args) => Reflect.apply(value, object, args));
    },
  });
}
