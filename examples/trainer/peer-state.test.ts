import { afterAll, describe, expect, it } from "vitest";
import {
  announcement,
  applyStep,
  checksum,
  fetchPeerState,
  initialState,
  newestPeerState,
  PEERS_ASKED,
  PEERS_ASKED_ANNOUNCED,
  peersFor,
  startPeerServer,
} from "./peer-state";

describe("peer-state recovery", () => {
  it("finds healthy peers from job_start's worker data and rank ips, the same local rank first", () => {
    const peers = peersFor({
      rank: 1,
      localRank: 1,
      rankIps: [
        { ip: "10.0.0.1", rank: 0 },
        { ip: "10.0.0.2", rank: 1 },
      ],
      workerData: [
        { rank: 0, group_rank: 0, local_rank: 0, failed: false, data: '{"peer_port":9000}' },
        { rank: 2, group_rank: 1, local_rank: 0, failed: true, data: '{"peer_port":9002}' },
        { rank: 3, group_rank: 1, local_rank: 1, failed: false, data: '{"peer_port":9003}' },
        { rank: 1, group_rank: 0, local_rank: 1, failed: false, data: '{"peer_port":9001}' },
        { rank: 5, group_rank: 2, local_rank: 1, failed: false, data: '{"peer_port":9005}' },
        { rank: 4, group_rank: 0, local_rank: 0, failed: false, data: "not json" },
      ],
    });
    expect(peers).toEqual([
      { rank: 3, url: "http://10.0.0.2:9003/state" },
      { rank: 0, url: "http://10.0.0.1:9000/state" },
    ]);
  });

  it("asks the peers that paused at the newest step first, and says which step that is", () => {
    const peers = peersFor({
      rank: 1,
      localRank: 1,
      rankIps: [
        { ip: "10.0.0.1", rank: 0 },
        { ip: "10.0.0.2", rank: 1 },
      ],
      workerData: [
        { rank: 3, group_rank: 1, local_rank: 1, failed: false, data: announcement(9003, 40) },
        { rank: 0, group_rank: 0, local_rank: 0, failed: false, data: announcement(9000, 42) },
        { rank: 2, group_rank: 1, local_rank: 0, failed: false, data: announcement(9002) },
      ],
    });
    expect(peers).toEqual([
      { rank: 0, url: "http://10.0.0.1:9000/state", step: 42 },
      { rank: 3, url: "http://10.0.0.2:9003/state", step: 40 },
      { rank: 2, url: "http://10.0.0.2:9002/state" },
    ]);
  });

  const servers: { close(): void }[] = [];
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it("serves a rank's state and a restarted rank takes it whole", async () => {
    const state = initialState(0);
    for (let step = 1; step <= 7; step++) {
      state.step = step;
      applyStep(state, 1 / step);
    }
    const { server, port } = await startPeerServer({ state: () => state, rank: () => 4 });
    servers.push(server);
    const got = await fetchPeerState({ rank: 4, url: `http://127.0.0.1:${port}/state` });
    expect(got?.step).toBe(7);
    expect(got && checksum(got)).toBe(checksum(state));
    expect(got?.momentum).toEqual(state.momentum);
    expect(await fetchPeerState({ rank: 4, url: `http://127.0.0.1:${port}/nothing` })).toBeNull();
  });
});

describe("newestPeerState", () => {
  const peer = (rank: number) => ({ rank, url: `http://peer-${rank}/state` });
  const at = (step: number) => ({ ...initialState(0), step });

  it("takes the newest state among the peers that answer", async () => {
    const steps = new Map([
      [1, 40],
      [2, 43],
      [3, 41],
    ]);
    const got = await newestPeerState([peer(1), peer(2), peer(3), peer(4)], {
      fetchState: async (p) => {
        const step = steps.get(p.rank);
        return step === undefined ? null : at(step);
      },
    });
    expect(got?.peer.rank).toBe(2);
    expect(got?.state.step).toBe(43);
  });

  it("asks at most PEERS_ASKED peers, and gives null when none answers", async () => {
    const asked: number[] = [];
    const peers = Array.from({ length: PEERS_ASKED + 4 }, (_, index) => peer(index));
    const got = await newestPeerState(peers, {
      fetchState: async (p) => {
        asked.push(p.rank);
        return null;
      },
    });
    expect(got).toBeNull();
    expect(asked).toHaveLength(PEERS_ASKED);
    asked.length = 0;
    const announced = peers.map((p) => ({ ...p, step: 40 }));
    await newestPeerState(announced, {
      fetchState: async (p) => {
        asked.push(p.rank);
        return null;
      },
    });
    expect(asked).toHaveLength(PEERS_ASKED_ANNOUNCED);
  });

  it("does not wait for a slow peer once one has answered: the others get the grace period", async () => {
    const began = Date.now();
    const got = await newestPeerState([peer(1), peer(2), peer(3)], {
      graceMs: 50,
      fetchState: (p) =>
        new Promise((resolve) => {
          if (p.rank === 1)
            setTimeout(() => resolve(at(40)), 5); // first
          else if (p.rank === 2)
            setTimeout(() => resolve(at(42)), 20); // within the grace: newer, taken
          else setTimeout(() => resolve(at(99)), 3000); // too slow: not waited for
        }),
    });
    expect(got?.peer.rank).toBe(2);
    expect(got?.state.step).toBe(42);
    expect(Date.now() - began).toBeLessThan(2000);
  });

  it("takes an answer at the newest step a peer announced at once, without the grace period", async () => {
    const began = Date.now();
    const got = await newestPeerState([{ ...peer(1), step: 42 }, { ...peer(2), step: 40 }, peer(3)], {
      graceMs: 5_000,
      fetchState: (p) =>
        new Promise((resolve) => {
          if (p.rank === 1)
            setTimeout(() => resolve(at(43)), 20); // paused at 42, one step since /start
          else if (p.rank === 2)
            setTimeout(() => resolve(at(41)), 5); // first, but older: waits on
          else setTimeout(() => resolve(at(99)), 4_000); // never waited for
        }),
    });
    expect(got?.peer.rank).toBe(1);
    expect(got?.state.step).toBe(43);
    expect(Date.now() - began).toBeLessThan(1_000);
  });
});
