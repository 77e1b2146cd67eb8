"""A small but real PyTorch DistributedDataParallel job for Rebound (and HyperPod).

Trains an MLP classifier on synthetic data generated in-process (no downloads, no pretrained weights).
It honours the environment the agent (rebound-agent / hyperpodrun / torchrun) gives every worker:
RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT and JOB_RESTART_COUNT. Run on its own
(`python3 train.py`) it trains as a single process.

Log lines (stdout, flushed; the job's log-monitoring rules match them):
    training started rank=0 world_size=8 restart_count=0 start_step=0 device=cuda:0 backend=nccl
    step=120 loss=2.3456 throughput=1523.4 samples/s rank=3
    training finished
SIGUSR1 (what the agent sends on a graceful stop) makes every rank stop after the same step; rank 0
saves a checkpoint and all ranks exit 0. On (re)start all ranks resume from the latest checkpoint.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel

CHECKPOINT_FILE = "checkpoint.pt"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="DDP MLP on synthetic data")
    parser.add_argument("--steps", type=int, default=1000, help="steps to train; 0 = until stopped")
    parser.add_argument("--batch-size", type=int, default=256, help="samples per rank per step")
    parser.add_argument("--input-dim", type=int, default=64)
    parser.add_argument("--hidden-dim", type=int, default=512)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--checkpoint-dir", default="/tmp/rebound-checkpoints/pytorch-example",
                        help="directory shared by all nodes; rank 0 writes, every rank reads")
    parser.add_argument("--checkpoint-every", type=int, default=50, help="steps between checkpoints; 0 = only at the end")
    parser.add_argument("--step-sleep", type=float, default=0.0, help="extra seconds per step (to watch a demo)")
    parser.add_argument("--crash-at-step", type=int, default=-1,
                        help="rank 0 exits with code 1 at this step on the first attempt (JOB_RESTART_COUNT=0)")
    return parser.parse_args(argv)


@dataclass
class Dist:
    rank: int
    local_rank: int
    world_size: int
    restart_count: int
    device: torch.device
    backend: str


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


def init_distributed() -> Dist:
    rank = env_int("RANK", 0)
    local_rank = env_int("LOCAL_RANK", 0)
    world_size = env_int("WORLD_SIZE", 1)
    # Standalone runs (no launcher) still go through init_process_group, as a world of one.
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
        device, backend = torch.device("cuda", local_rank), "nccl"
    else:
        device, backend = torch.device("cpu"), "gloo"
    dist.init_process_group(backend=backend, init_method="env://", rank=rank, world_size=world_size)
    return Dist(rank, local_rank, world_size, env_int("JOB_RESTART_COUNT", 0), device, backend)


class MLP(nn.Module):
    def __init__(self, input_dim: int, hidden_dim: int, classes: int) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(input_dim, hidden_dim), nn.GELU(),
            nn.Linear(hidden_dim, hidden_dim), nn.GELU(),
            nn.Linear(hidden_dim, classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class SyntheticTask:
    """Labels come from a fixed random 'teacher'; every (step, rank) batch is reproducible, so a resumed
    run sees exactly the data it would have seen without the interruption."""

    def __init__(self, args: argparse.Namespace, env: Dist) -> None:
        teacher_rng = torch.Generator().manual_seed(args.seed)
        self.teacher = torch.randn(args.input_dim, args.classes, generator=teacher_rng).to(env.device)
        self.args, self.env = args, env

    def batch(self, step: int) -> tuple[torch.Tensor, torch.Tensor]:
        rng = torch.Generator().manual_seed(self.args.seed + 1 + step * self.env.world_size + self.env.rank)
        x = torch.randn(self.args.batch_size, self.args.input_dim, generator=rng).to(self.env.device)
        noise = 0.1 * torch.randn(self.args.batch_size, self.args.classes, generator=rng).to(self.env.device)
        return x, (x @ self.teacher + noise).argmax(dim=1)


class StopRequest:
    """Set by SIGUSR1. Ranks agree on it with an all-reduce every step, so all stop after the same step
    (a rank that stopped alone would leave the others blocked in the next collective)."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGUSR1, self._handle)

    def _handle(self, _signum: int, _frame: object) -> None:
        self.requested = True

    def agreed(self, device: torch.device) -> bool:
        flag = torch.tensor([1.0 if self.requested else 0.0], device=device)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return bool(flag.item() > 0)


def checkpoint_path(args: argparse.Namespace) -> str:
    return os.path.join(args.checkpoint_dir, CHECKPOINT_FILE)


def save_checkpoint(args: argparse.Namespace, env: Dist, state: dict) -> None:
    """Rank 0 writes (atomically: temp file + rename); the barrier keeps readers from racing ahead."""
    if env.rank == 0:
        os.makedirs(args.checkpoint_dir, exist_ok=True)
        tmp = f"{checkpoint_path(args)}.tmp"
        torch.save(state, tmp)
        os.replace(tmp, checkpoint_path(args))
    dist.barrier()


def load_checkpoint(args: argparse.Namespace, env: Dist, model: nn.Module, optimizer: torch.optim.Optimizer) -> int:
    """Every rank loads the same file (the directory must be shared across nodes); returns the next step."""
    path = checkpoint_path(args)
    if not os.path.exists(path):
        return 0
    state = torch.load(path, map_location=env.device, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return int(state["step"])


def log(message: str) -> None:
    # One write per line, so lines from ranks sharing a terminal do not interleave mid-line.
    sys.stdout.write(f"{message}\n")
    sys.stdout.flush()


def train(args: argparse.Namespace, env: Dist) -> int:
    torch.manual_seed(args.seed)  # identical initial weights on every rank (DDP also broadcasts rank 0's)
    model = MLP(args.input_dim, args.hidden_dim, args.classes).to(env.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    step = load_checkpoint(args, env, model, optimizer)
    ddp = DistributedDataParallel(model, device_ids=[env.local_rank] if env.device.type == "cuda" else None)
    task, stop = SyntheticTask(args, env), StopRequest()

    def snapshot() -> dict:
        return {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}

    log(f"training started rank={env.rank} world_size={env.world_size} restart_count={env.restart_count} "
        f"start_step={step} device={env.device} backend={env.backend}")
    while args.steps == 0 or step < args.steps:
        if stop.agreed(env.device):
            save_checkpoint(args, env, snapshot())
            log(f"training stopped on SIGUSR1 at step={step} rank={env.rank}; checkpoint saved")
            return 0
        if step == args.crash_at_step and env.restart_count == 0 and env.rank == 0:
            log(f"simulated crash at step={step} rank={env.rank}")
            return 1
        started = time.perf_counter()
        x, y = task.batch(step)
        loss = F.cross_entropy(ddp(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        value = loss.item()  # synchronises with the device, so the timing below is real
        time.sleep(args.step_sleep)
        elapsed = max(time.perf_counter() - started, 1e-9)
        step += 1
        # A non-finite loss prints as "nan" / "inf" / "-inf", which the LossNaN rule looks for.
        log(f"step={step} loss={value:.4f} throughput={args.batch_size / elapsed:.1f} samples/s rank={env.rank}")
        if args.checkpoint_every > 0 and step % args.checkpoint_every == 0:
            save_checkpoint(args, env, snapshot())
    save_checkpoint(args, env, snapshot())
    log("training finished")
    return 0


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    env = init_distributed()
    try:
        return train(args, env)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
