import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openLeaseStore } from "./pod-leases";
import type { AccountKind } from "./pod-reclaim";
import { type Accounts, createAccountPool, type Reclaim } from "./pod-user-pool";

const dir = mkdtempSync(path.join(tmpdir(), "rebound-pod-pool-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fresh = 0;
/** A lease store of its own and two data dirs (two Rebound instances) that exist. */
function machine() {
  fresh += 1;
  const base = path.join(dir, `machine-${fresh}`);
  const dataDirs = ["a", "b"].map((name) => path.join(base, name));
  for (const each of dataDirs) mkdirSync(each, { recursive: true });
  return { store: openLeaseStore(path.join(base, "leases")), leaseDir: path.join(base, "leases"), dataDirs };
}

/**
 * The machine's account table as a map (this test makes no system users): what useradd would add, with
 * ids from 60000 up; `made` lists what was created.
 */
function accountTable(): Accounts & { made: string[] } {
  const ids = new Map<string, number>();
  const made: string[] = [];
  return {
    made,
    find: (_kind: AccountKind, name: string) => ids.get(name) ?? null,
    async create(_kind: AccountKind, name: string) {
      made.push(name);
      ids.set(name, 60_000 + ids.size);
    },
  };
}

/** Records each lease ended (the account's id and the directories handed back). */
function recordingReclaim(): Reclaim & { ended: { id: number; dirs: string[] }[] } {
  const ended: { id: number; dirs: string[] }[] = [];
  const reclaim = ((_kind, lease) => {
    ended.push({ id: lease.id, dirs: [...lease.dirs] });
    return { swept: Promise.resolve() };
  }) as Reclaim & { ended: typeof ended };
  reclaim.ended = ended;
  return reclaim;
}

/** A pid that ran and exited: a holder that died. */
function deadPid(): number {
  const child = spawnSync("true");
  return child.pid as number;
}

describe("the account pool", () => {
  it("hands out the lowest free account, made on first need, one per owner", async () => {
    const { store, dataDirs } = machine();
    const accounts = accountTable();
    const reclaim = recordingReclaim();
    const pool = createAccountPool("user", { dataDir: dataDirs[0] as string, store, accounts, reclaim });
    const first = await pool.acquire("ns/a-0", ["/x/a-0/logs"]);
    const second = await pool.acquire("ns/a-1", ["/x/a-1/logs"]);
    expect([first.name, second.name]).toEqual(["rebound-pod-0", "rebound-pod-1"]);
    expect(first.id).not.toBe(second.id);
    expect(accounts.made).toEqual(["rebound-pod-0", "rebound-pod-1"]);
    expect(store.read("rebound-pod-0")).toMatchObject({
      owner: "ns/a-0",
      free: false,
      dirs: ["/x/a-0/logs"],
    });
  });

  it("reuses a released account without making another, after handing back what it had", async () => {
    const { store, dataDirs } = machine();
    const accounts = accountTable();
    const reclaim = recordingReclaim();
    const pool = createAccountPool("user", { dataDir: dataDirs[0] as string, store, accounts, reclaim });
    const first = await pool.acquire("ns/a-0", ["/x/a-0/logs", "/x/a-0/home"]);
    await pool.release(first.name, "ns/a-0");
    expect(reclaim.ended).toEqual([{ id: first.id, dirs: ["/x/a-0/logs", "/x/a-0/home"] }]);
    expect(store.read(first.name)).toMatchObject({ free: true, dirs: [] });
    const again = await pool.acquire("ns/b-0", ["/x/b-0/logs"]);
    expect(again).toEqual(first);
    expect(accounts.made).toEqual(["rebound-pod-0"]);
    // A free account's last holder already handed everything back: nothing more to end.
    expect(reclaim.ended).toHaveLength(1);
  });

  it("never gives one account to two instances, even asked at once", async () => {
    const { store, dataDirs } = machine();
    const accounts = accountTable();
    const pools = dataDirs.map((dataDir) =>
      createAccountPool("user", { dataDir, store, accounts, reclaim: recordingReclaim() }),
    );
    const taken = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        (pools[index % 2] as (typeof pools)[number]).acquire(`ns/pod-${index}`, []),
      ),
    );
    expect(new Set(taken.map((account) => account.name)).size).toBe(24);
    expect(new Set(taken.map((account) => account.id)).size).toBe(24);
  });

  it("takes over a lease whose holder died and whose pods are gone, ending it first", async () => {
    const { store, dataDirs } = machine();
    const accounts = accountTable();
    await accounts.create("user", "rebound-pod-0");
    store.take("rebound-pod-0", 0, {
      account: "rebound-pod-0",
      id: 60_000,
      free: false,
      holder: { pid: deadPid(), startTime: null, dataDir: dataDirs[1] as string },
      owner: "vision/old-0",
      dirs: ["/old/logs"],
    });
    const reclaim = recordingReclaim();
    const pool = createAccountPool("user", { dataDir: dataDirs[0] as string, store, accounts, reclaim });
    expect(await pool.acquire("ns/new-0", ["/new/logs"])).toEqual({ name: "rebound-pod-0", id: 60_000 });
    expect(reclaim.ended).toEqual([{ id: 60_000, dirs: ["/old/logs"] }]);
    expect(store.read("rebound-pod-0")).toMatchObject({ owner: "ns/new-0", generation: 2 });
  });

  it("takes over a lease whose instance's data dir is gone, even though its holder lives", async () => {
    const { store } = machine();
    const accounts = accountTable();
    await accounts.create("user", "rebound-pod-0");
    store.take("rebound-pod-0", 0, {
      account: "rebound-pod-0",
      id: 60_000,
      free: false,
      holder: { pid: process.pid, startTime: null, dataDir: path.join(dir, "deleted-data-dir") },
      owner: "ns/p-0",
      dirs: [],
    });
    const pool = createAccountPool("user", { dataDir: dir, store, accounts, reclaim: recordingReclaim() });
    expect((await pool.acquire("ns/q-0", [])).name).toBe("rebound-pod-0");
  });

  it("leaves a dead holder's lease alone while a process of the account runs (its pods await adoption)", async () => {
    const { store, dataDirs } = machine();
    const root = process.getuid?.() === 0;
    // Root runs the process as the account's uid; anyone else has processes of its own uid running anyway.
    const id = root ? 54_329 : (process.getuid?.() as number);
    const sleeper = spawn("sleep", ["30"], root ? { uid: id, gid: id } : {});
    try {
      store.take("rebound-pod-0", 0, {
        account: "rebound-pod-0",
        id,
        free: false,
        holder: { pid: deadPid(), startTime: null, dataDir: dataDirs[1] as string },
        owner: "ns/p-0",
        dirs: [],
      });
      const pool = createAccountPool("user", {
        dataDir: dataDirs[0] as string,
        store,
        accounts: accountTable(),
        reclaim: recordingReclaim(),
      });
      expect((await pool.acquire("ns/q-0", [])).name).toBe("rebound-pod-1");
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("lets a restarted operator of the same data dir hold its pods' accounts again, and no one else", async () => {
    const { store, dataDirs } = machine();
    const accounts = accountTable();
    const reclaim = recordingReclaim();
    const before = createAccountPool("group", { dataDir: dataDirs[0] as string, store, accounts, reclaim });
    const group = await before.acquire("ns/job/uid-1", ["/jobs/job"]);
    const other = createAccountPool("group", { dataDir: dataDirs[1] as string, store, accounts, reclaim });
    expect(other.leasedTo("ns/job/uid-1")).toBeNull();
    expect(other.adopt(group.name, "ns/job/uid-1")).toBeNull();
    const after = createAccountPool("group", { dataDir: dataDirs[0] as string, store, accounts, reclaim });
    expect(after.leasedTo("ns/job/uid-1")).toBe("rebound-job-0");
    expect(after.adopt(group.name, "ns/another-job/uid-2")).toBeNull();
    expect(after.adopt(group.name, "ns/job/uid-1")).toEqual(group);
  });
});

describe("the lease store", () => {
  it("lets one writer of a generation win, and keeps only the newest generation", () => {
    const { store, leaseDir, dataDirs } = machine();
    const body = (owner: string) => ({
      account: "rebound-job-0",
      id: 60_000,
      free: false,
      holder: { pid: process.pid, startTime: null, dataDir: dataDirs[0] as string },
      owner,
      dirs: [],
    });
    expect(store.take("rebound-job-0", 0, body("first"))).toBe(true);
    expect(store.take("rebound-job-0", 0, body("late"))).toBe(false);
    expect(store.take("rebound-job-0", 1, body("second"))).toBe(true);
    expect(store.take("rebound-job-0", 2, body("third"))).toBe(true);
    // A writer that read generation 1 long ago: 2 is gone, but 3 is newer, so its write does not count.
    expect(store.take("rebound-job-0", 1, body("stale reader"))).toBe(false);
    expect(store.read("rebound-job-0")).toMatchObject({ owner: "third", generation: 3 });
    expect(readdirSync(leaseDir)).toEqual(["rebound-job-0.3"]);
  });
});
