#!/usr/bin/env python3
"""Learning with kray's projector inside autograd: an unrolled sparse-view CT reconstruction.

Each of K stages takes a gradient step on the data term through kray's projector and its exact
adjoint, then adds a small CNN's correction:

    x <- x - a_k A^T (A x - y) + CNN_k(x),    a_k = exp(s_k) / L

A is kray's Joseph projector (kray.ct.operator) wrapped as a torch module (kray.torch.Operator),
so the loss gradient flows back through A and A^T without any hand-written backward. Training
data are random ellipse phantoms rasterised by kray, measured at few views with noise. The
loss (mean squared error to the phantom) falls as the step sizes and the CNNs learn.

    python3 unrolled_ct.py [--steps 300] [--size 32] [--views 24] [--seed 0]

Prints the loss every 25 steps and the test-set error of the trained network against
unregularised least squares (CGLS) on the same data.
"""
import argparse
import sys
import time

import numpy as np
import torch

import kray
import kray.ct
import kray.phantom
import kray.torch as kt


def random_phantom(rng, n, count=5):
    """A kray phantom of `count` random ellipses (rows rho, a, b, x0, y0, phi_deg, in the unit
    disc)."""
    e = np.zeros((count, 6))
    e[:, 0] = rng.uniform(0.2, 1.0, count) * rng.choice([1, -0.5], count, p=[0.8, 0.2])
    e[:, 1:3] = rng.uniform(0.1, 0.5, (count, 2))
    e[:, 3:5] = rng.uniform(-0.4, 0.4, (count, 2))
    e[:, 5] = rng.uniform(0, 180, count)
    e[0] = [1.0, 0.8, 0.7, 0, 0, 0]            # a body outline
    return kray.phantom.shepp_logan((n, n), ellipses=e, supersample=2)


class Unrolled(torch.nn.Module):
    def __init__(self, op, stages=4, step=1.0, width=8):
        super().__init__()
        self.A = kt.Operator(op)
        self.At = self.A.H
        self.step = float(step)                  # 1 / L, L the largest eigenvalue of A^T A
        self.log_steps = torch.nn.Parameter(torch.zeros(stages))
        self.cnns = torch.nn.ModuleList(torch.nn.Sequential(
            torch.nn.Conv2d(1, width, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(width, 1, 3, padding=1)) for _ in range(stages))
        for c in self.cnns:                      # start as plain gradient descent
            torch.nn.init.zeros_(c[2].weight)
            torch.nn.init.zeros_(c[2].bias)

    def forward(self, y):
        x = torch.zeros(self.A.op.shape_in, dtype=y.dtype, device=y.device)
        for s, cnn in zip(self.log_steps, self.cnns):
            x = x - self.step * torch.exp(s) * self.At(self.A(x) - y)
            x = x + cnn(x[None, None])[0, 0]
        return x


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--views", type=int, default=24)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--noise", type=float, default=0.02, help="relative noise of the data")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    n = a.size
    geom = kray.ct.Geometry.parallel(det_count=int(1.5 * n), image_shape=(n, n), voxel_mm=1.0,
                                     nviews=a.views)
    op = kray.ct.operator(geom, dtype=np.float64)
    # Step size from the largest eigenvalue of A^T A (power iteration through kray).
    v = rng.standard_normal(op.shape_in)
    for _ in range(30):
        v = op.normal(v)
        lmax = np.linalg.norm(v)
        v /= lmax
    model = Unrolled(op, step=1.0 / lmax).double()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    def sample():
        x = random_phantom(rng, n).astype(np.float64)
        y = op(x)
        y = y + a.noise * np.abs(y).max() * rng.standard_normal(y.shape)
        return torch.from_numpy(x), torch.from_numpy(y)

    losses = []
    t0 = time.perf_counter()
    for step in range(a.steps):
        opt.zero_grad()
        loss = 0.0
        for _ in range(a.batch):
            x, y = sample()
            loss = loss + torch.mean((model(y) - x) ** 2) / a.batch
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % 25 == 0 or step == a.steps - 1:
            print("step %4d  loss %.5f" % (step, losses[-1]), flush=True)
    dt = time.perf_counter() - t0
    # Held-out phantoms: the trained network against CGLS (20 iterations) on the same data.
    err_net, err_cgls = [], []
    with torch.no_grad():
        for _ in range(8):
            x, y = sample()
            err_net.append(torch.mean((model(y) - x) ** 2).item())
            r = kray.cgls(op, y.numpy(), max_iter=20)
            err_cgls.append(np.mean((r.x - x.numpy()) ** 2))
    first, last = np.mean(losses[:10]), np.mean(losses[-10:])
    print("trained %d steps in %.1f s: loss %.5f -> %.5f; held-out MSE %.5f (CGLS %.5f)" %
          (a.steps, dt, first, last, np.mean(err_net), np.mean(err_cgls)))
    return first, last, float(np.mean(err_net)), float(np.mean(err_cgls))


if __name__ == "__main__":
    main()
    sys.exit(0)
