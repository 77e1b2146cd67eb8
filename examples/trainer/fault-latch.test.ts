import { describe, expect, it } from "vitest";
import { createFaultLatch } from "./fault-latch";

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("createFaultLatch", () => {
  it("sends an armed rank back to the barrier on job_fault, once", async () => {
    const latch = createFaultLatch();
    let fired = 0;
    latch.enterBlock();
    latch.arm(() => {
      fired += 1;
    });
    latch.onJobFault();
    latch.onJobFault();
    await turn();
    expect(fired).toBe(1);
  });

  it("keeps a job_fault that comes before the loop arms (the rank still restoring) and fires on arming", async () => {
    const latch = createFaultLatch();
    let fired = 0;
    latch.enterBlock();
    latch.onJobFault(); // while taking its state from a peer: the loop has not armed yet
    latch.arm(() => {
      fired += 1;
    });
    await turn();
    expect(fired).toBe(1);
  });

  it("ignores a job_fault while the rank waits at the barrier", async () => {
    const latch = createFaultLatch();
    let fired = 0;
    latch.onJobFault(); // at the barrier (never entered, or back from the last fault)
    latch.enterBlock();
    latch.arm(() => {
      fired += 1;
    });
    await turn();
    expect(fired).toBe(0);
    latch.onJobFault();
    await turn();
    expect(fired).toBe(1);
    latch.onJobFault(); // back at the barrier now: nothing kept for the next run
    latch.enterBlock();
    latch.arm(() => {
      fired += 1;
    });
    await turn();
    expect(fired).toBe(1);
  });
});
