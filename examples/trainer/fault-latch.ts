/**
 * When a rank leaves the re-executable block for the barrier (the demo trainer's side of HyperPod's
 * `job_fault`). The agent sends job_fault to every rank it pauses; a rank inside the block must come back
 * to the barrier, whatever it is doing at that moment. The training loop arms the latch when it starts
 * stepping, but a rank spends time inside the block before that (past the barrier, taking its state from a
 * peer, which can take seconds on a loaded machine): a job_fault then is kept and fires as soon as the loop
 * arms, instead of being dropped. Dropped, the rank trained on while its agent waited for it at the barrier:
 * the recovery stayed in "stopping" until --inprocess-timeout (forever without one).
 * A job_fault while the rank waits at the barrier is not kept: it is where the agent wants it already.
 */
export type FaultLatch = {
  /** The rank passed the barrier (past_rcb_barrier sent): a job_fault from now on sends it back. */
  enterBlock(): void;
  /** A job_fault from the agent. */
  onJobFault(): void;
  /** The training loop's exit: called once (on a later turn) for a job_fault received in the block. */
  arm(onFault: () => void): void;
};

export function createFaultLatch(): FaultLatch {
  let inBlock = false;
  let pending = false;
  let armed: (() => void) | null = null;
  const fire = (onFault: () => void) => {
    inBlock = false;
    pending = false;
    armed = null;
    setImmediate(onFault);
  };
  return {
    enterBlock() {
      inBlock = true;
      pending = false;
    },
    onJobFault() {
      if (!inBlock) return;
      if (armed !== null) fire(armed);
      else pending = true;
    },
    arm(onFault) {
      if (pending) fire(onFault);
      else armed = onFault;
    },
  };
}
