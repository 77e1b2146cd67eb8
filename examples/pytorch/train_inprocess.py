"""In-process-restart (checkpointless) variant of train.py, with peer-state recovery.

Run under an agent started with `--inprocess-restart` (HyperPod's `hyperpodrun` or `rebound-agent`) and
INPROCESS_RESTART=1. It talks to the agent with HyperPod's own IPC client
(`hyperpod_elastic_agent.ipc.InProcessRestartSocketClient`, over the unix socket the agent names in
HYPERPOD_ELASTICAGENT_SOCKET_SERVER_PATH), in the shape of HyperPod's checkpointless training loop:

    build the model once per process
    loop:
        hyperpod_barrier()           wait at the re-executable code block (RCB) barrier for job_start,
                                     which carries this run's RANK, WORLD_SIZE, MASTER_ADDR/PORT, restart count
        hyperpod_past_rcb_barrier()
        join a new process group; agree on the state (below); train
        until the agent sends job_fault (another rank failed): leave the process group, back to the barrier

Ranks that keep their process keep their model and optimizer in memory. With --peer-recovery a new
process (its node's processes were restarted) takes model and optimizer state from a healthy
data-parallel peer over the process group (torch.distributed broadcast from the rank with the newest
state) instead of reading the checkpoint, so no step is lost:
    state from peer rank=0 step=57 rank=1
Without it, a run where some rank has no state makes every rank reload the checkpoint (steps since the
checkpoint are lost). Flags: those of train.py, plus --peer-recovery and --crash-rank R (the rank that
--crash-at-step crashes, default the last rank; first run only).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from hyperpod_elastic_agent.ipc import InProcessRestartSocketClient
from train import MLP, Dist, SyntheticTask, env_int, load_checkpoint, log, parse_args, save_checkpoint

STORE_TIMEOUT = timedelta(seconds=60)


class Faults:
    """Watches job_fault from the agent on a thread: set once another rank failed and this one must go back."""

    def __init__(self, client: InProcessRestartSocketClient) -> None:
        self.event = threading.Event()
        self.client = client
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        while True:
            self.client.hyperpod_wait_fault()
            self.event.set()


class Stores:
    """Rank 0 serves the rendezvous store for as long as its process lives; the others connect per run."""

    def __init__(self) -> None:
        self.server: dist.TCPStore | None = None

    def for_run(self, rank: int, world_size: int, envs: dict, restart: int) -> dist.Store:
        addr, port = envs["MASTER_ADDR"], int(envs["MASTER_PORT"])
        if rank == 0:
            if self.server is None:
                self.server = dist.TCPStore(addr, port, world_size, True, timeout=STORE_TIMEOUT)
            store = self.server
        else:
            store = dist.TCPStore(addr, port, world_size, False, timeout=STORE_TIMEOUT)
        return dist.PrefixStore(f"run{restart}", store)


def state_tensors(model, optimizer) -> list[torch.Tensor]:
    """Model parameters and buffers, then AdamW's moments and step count per parameter, in a fixed order (the
    same on every rank). A new process has no optimizer state yet: one step with zero gradients makes it
    (its values are overwritten by the broadcast)."""
    params = [p for group in optimizer.param_groups for p in group["params"]]
    if any(p not in optimizer.state for p in params):
        for p in params:
            p.grad = torch.zeros_like(p)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    tensors = list(model.state_dict().values())
    for p in params:
        state = optimizer.state[p]
        tensors += [state[key] for key in ("step", "exp_avg", "exp_avg_sq") if isinstance(state.get(key), torch.Tensor)]
    return tensors


def agree_on_state(args, env: Dist, model, optimizer, step: int | None, peer_recovery: bool) -> int:
    """Every rank says which step it holds (-1: none); returns the step all ranks now hold."""
    mine = torch.tensor([-1 if step is None else step], dtype=torch.long)
    held = [torch.zeros(1, dtype=torch.long) for _ in range(env.world_size)]
    dist.all_gather(held, mine)
    steps = [int(t.item()) for t in held]
    if peer_recovery and max(steps) >= 0:
        src = steps.index(max(steps))
        for tensor in state_tensors(model, optimizer):
            dist.broadcast(tensor, src=src)
        if steps[env.rank] != steps[src]:
            log(f"state from peer rank={src} step={steps[src]} rank={env.rank}")
        return steps[src]
    if min(steps) >= 0 and len(set(steps)) == 1:
        log(f"in-process restart: kept state step={steps[0]} rank={env.rank}")
        return steps[0]
    resumed = load_checkpoint(args, env, model, optimizer)
    log(f"resuming from checkpoint at step {resumed} rank={env.rank}")
    return resumed


def run(args, env: Dist, model, optimizer, held: dict, faults: Faults) -> None:
    """Trains until the agent reports a fault elsewhere; held["step"] is the last step done."""
    ddp = DistributedDataParallel(model)
    task = SyntheticTask(args, env)
    while (args.steps == 0 or held["step"] < args.steps) and not faults.event.is_set():
        step = held["step"]
        if step == args.crash_at_step and env.restart_count == 0 and env.rank == args.crash_rank % env.world_size:
            log(f"simulated crash at step={step} rank={env.rank}")
            os._exit(1)
        started = time.perf_counter()
        x, y = task.batch(step)
        loss = F.cross_entropy(ddp(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        value = loss.item()
        time.sleep(args.step_sleep)
        step += 1
        held["step"] = step
        elapsed = max(time.perf_counter() - started, 1e-9)
        log(f"step={step} loss={value:.4f} throughput={args.batch_size / elapsed:.1f} samples/s rank={env.rank}")
        if args.checkpoint_every > 0 and step % args.checkpoint_every == 0:
            save_checkpoint(args, env, {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step})


def main(argv: list[str]) -> int:
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--peer-recovery", action="store_true")
    extra.add_argument("--crash-rank", type=int, default=-1)
    own, rest = extra.parse_known_args(argv)
    args = parse_args(rest)
    args.crash_rank, peer_recovery = own.crash_rank, own.peer_recovery
    torch.manual_seed(args.seed)
    model = MLP(args.input_dim, args.hidden_dim, args.classes)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    client = InProcessRestartSocketClient()
    faults, stores = Faults(client), Stores()
    held: dict = {"step": None}
    log(f"training started (in-process restart) local_rank={env_int('LOCAL_RANK', 0)} peer_recovery={peer_recovery}")
    while args.steps == 0 or held["step"] is None or held["step"] < args.steps:
        _, start = client.hyperpod_barrier()
        client.hyperpod_past_rcb_barrier()
        faults.event.clear()
        envs = start["worker_envs"]
        env = Dist(int(envs["RANK"]), env_int("LOCAL_RANK", 0), int(envs["WORLD_SIZE"]),
                   int(envs["JOB_RESTART_COUNT"]), torch.device("cpu"), "gloo")
        store = stores.for_run(env.rank, env.world_size, envs, env.restart_count)
        dist.init_process_group("gloo", store=store, rank=env.rank, world_size=env.world_size, timeout=STORE_TIMEOUT)
        try:
            held["step"] = agree_on_state(args, env, model, optimizer, held["step"], peer_recovery)
            log(f"run started rank={env.rank} world_size={env.world_size} restart={env.restart_count} step={held['step']}")
            run(args, env, model, optimizer, held, faults)
        except (RuntimeError, dist.DistBackendError) as error:  # a peer died mid-collective
            first = str(error).splitlines()[0] if str(error) else ""
            log(f"collective failed ({type(error).__name__}: {first[:300]}); waiting for the agent's job_fault rank={env.rank}")
            faults.event.wait()
        finally:
            dist.destroy_process_group()
        if faults.event.is_set():
            log(f"job_fault: back to the barrier at step={held['step']} rank={env.rank}")
    log("training finished")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
