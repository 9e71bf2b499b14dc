"""Shared part of the NUFFT peers of `kray bench nufft` (peer_cufinufft.py on a GPU machine,
peer_finufft.py on the CPU): the bench's inputs, scoring against the bench's own references,
and the sweep that picks the peer's fastest setting at a given accuracy.

The bench writes raw little-endian files: float32 (kx, ky, kz) per point in cycles per FOV,
complex64 samples, complex64 image in kray's x-fastest order, int64 indices of the checked
outputs and complex128 direct sums at those outputs (--ref). kray's adjoint is a type-1 NUFFT
with isign +1 and its forward a type-2 NUFFT with isign -1, with coordinates 2 pi k / N and the
default mode order (index i <-> mode i - N/2); the modes are given in reversed order (z, y, x)
so that the peers' C-order arrays have kray's memory layout.

The sweep: for each of the peer's settings (precision, method, upsampling, ...), the peer's
eps is lowered from --eps (the target) by 1, 2, 4, 10, 30, 100 until the error on the checked
outputs is at most --target-err (kray's error on the same outputs: the peer must be at least as
accurate as kray); that eps is then timed: `setpts` (best of --reps calls on one plan, and the
first call apart) and `reps` executes after one warm-up, each synchronised. cuFINUFFT's
setting is then timed again through its C functions (cufinufft[f]_setpts and _execute, called
by ctypes on prebuilt device pointers, as a C or C++ program calls them, without the Python
API's per-call checks); those C times are the setting's `setpts_s` and `min_s`, the Python
API's stay beside them as `py_setpts_s` and `py_min_s` ("api" says which). kray's own times are
its C calls too. Every setting tried prints one JSON line ("sweep": true); the last line names
the winner: the fastest setting that reached the target (or, when none did, the most accurate
one, with "reached": false).
"""
import argparse
import json
import time

EPS_STEPS = (1, 2, 4, 10, 30, 100)


def parse_args(doc):
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--traj", required=True)
    ap.add_argument("--y", required=True)
    ap.add_argument("--f", required=True)
    ap.add_argument("--idx", required=True)
    ap.add_argument("--ref", required=True, help="complex128 references at --idx")
    ap.add_argument("--dims", type=int, nargs=3, required=True)
    ap.add_argument("--ndim", type=int, required=True)
    ap.add_argument("--direction", choices=["adjoint", "forward"], required=True)
    ap.add_argument("--eps", type=float, required=True, help="the target tolerance")
    ap.add_argument("--target-err", type=float, default=None,
                    help="error to reach (default: --eps)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="CPU peer: threads (0: all)")
    ap.add_argument("--out", required=True, help="the winner's checked outputs (complex64)")
    return ap.parse_args()


class Inputs:
    """The bench's points, data, checked indices and references."""

    def __init__(self, a, np):
        self.np = np
        self.nd = a.ndim
        self.n = a.dims[:a.ndim]
        self.modes = tuple(reversed(self.n))
        t = np.fromfile(a.traj, dtype=np.float32).reshape(-1, 3)
        self.m = t.shape[0]
        # coordinates slowest axis first, in radians, float64 (cast per precision)
        self.coords = [2.0 * np.pi * t[:, d].astype(np.float64) / self.n[d]
                       for d in reversed(range(self.nd))]
        self.adjoint = a.direction == "adjoint"
        if self.adjoint:
            self.data = np.fromfile(a.y, dtype=np.complex64)[:self.m]
        else:
            nimg = int(np.prod(self.n))
            self.data = np.fromfile(a.f, dtype=np.complex64)[:nimg].reshape(self.modes)
        self.idx = np.fromfile(a.idx, dtype=np.int64)
        self.ref = np.fromfile(a.ref, dtype=np.complex128)[:self.idx.size]

    def error(self, out):
        got = self.np.asarray(out).reshape(-1)[self.idx].astype(self.np.complex128)
        return float(self.np.linalg.norm(got - self.ref) / self.np.linalg.norm(self.ref))


def timed(fn, sync, reps, warm=True):
    if warm:
        fn()
        sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return ts


def sweep(name, version, a, inp, settings, make, sync, emit=print):
    """settings: list of dicts; make(setting, eps) -> (setpts(), execute() -> output, host(out))
    for a fresh plan. Returns 0 when some setting ran."""
    target = a.target_err if a.target_err is not None else a.eps
    results = []
    for st in settings:
        r = dict(peer=name, sweep=True, setting=st)
        try:
            for f in EPS_STEPS:
                e = a.eps / f
                setpts, execute, host, bare = make(st, e)
                t0 = time.perf_counter()
                setpts()
                sync()
                first = time.perf_counter() - t0
                out = execute()
                sync()
                err = inp.error(host(out))
                r.update(eps=e, rel_err=err)
                if err <= target or f == EPS_STEPS[-1]:
                    break
            sp = timed(setpts, sync, max(2, a.reps), warm=False)
            ex = timed(execute, sync, a.reps)
            r.update(setpts_first_s=first, setpts_s=min(sp), min_s=min(ex),
                     mean_s=sum(ex) / len(ex), reached=r["rel_err"] <= target, api="python")
            b = bare()
            if b is not None:
                # the C calls are what a C or C++ caller pays: they are the setting's times,
                # the Python API's stay beside them
                bsp = timed(b[0], sync, max(2, a.reps), warm=False)
                bex = timed(b[1], sync, a.reps)
                check = inp.error(host(out))  # the bare calls wrote the same output
                r.update(py_setpts_s=r["setpts_s"], py_min_s=r["min_s"], py_mean_s=r["mean_s"],
                         setpts_s=min(bsp), min_s=min(bex), mean_s=sum(bex) / len(bex),
                         api="C (ctypes, prebuilt device pointers)", bare_rel_err=check)
            setpts = execute = out = bare = None  # free the plan before the next one
        except Exception as ex:  # noqa: BLE001  (a setting the peer refuses)
            r["error"] = "%s: %s" % (type(ex).__name__, ex)
        results.append(r)
        emit(json.dumps(r))
    ok = [r for r in results if r.get("reached")]
    if ok:
        win = min(ok, key=lambda r: r["min_s"])
    else:
        ran = [r for r in results if "rel_err" in r and "min_s" in r]
        if not ran:
            emit(json.dumps({"peer": name, "error": "no setting ran"}))
            return 1
        win = min(ran, key=lambda r: r["rel_err"])
    setpts, execute, host, _ = make(win["setting"], win["eps"])
    setpts()
    out = host(execute())
    inp.np.asarray(out).reshape(-1)[inp.idx].astype(inp.np.complex64).tofile(a.out)
    st = dict(win["setting"], eps=win["eps"])
    emit(json.dumps({"peer": name, "version": version, "winner": True, "setting": st,
                     "setting_str": " ".join("%s=%s" % (k, v) for k, v in st.items()),
                     "target_err": target, "reached": win["reached"],
                     "rel_err": win["rel_err"], "setpts_s": win["setpts_s"],
                     "setpts_first_s": win["setpts_first_s"], "min_s": win["min_s"],
                     "mean_s": win["mean_s"], "api": win["api"],
                     "py_min_s": win.get("py_min_s"), "py_setpts_s": win.get("py_setpts_s"),
                     "tried": len(results)}))
    return 0


def plan_maker(inp, np, module, to_dev, to_host):
    """make(setting, eps) for sweep(): a fresh module.Plan (finufft and cufinufft share the
    signature) of the setting's precision and options on the points, and its execute."""
    cache = {}

    def make(st, eps):
        dt = st["dtype"]
        if dt not in cache:  # the points and data in this precision, converted once
            rdt = np.float32 if dt == "complex64" else np.float64
            cache[dt] = ([to_dev(np.ascontiguousarray(c.astype(rdt))) for c in inp.coords],
                         to_dev(np.ascontiguousarray(inp.data.astype(dt))))
        coords, data = cache[dt]
        opts = {k: v for k, v in st.items() if k != "dtype"}
        plan = module.Plan(1 if inp.adjoint else 2, inp.modes, n_trans=1, eps=eps,
                           isign=1 if inp.adjoint else -1, dtype=dt, **opts)
        holder = {}

        def execute():
            holder["o"] = plan.execute(data, out=holder.get("o"))
            return holder["o"]

        def bare():
            return bare_calls(plan, coords, data, holder.get("o"), inp.adjoint)
        return (lambda: plan.setpts(*coords)), execute, to_host, bare
    return make


def bare_calls(plan, coords, data, out, adjoint):
    """(setpts, execute) of a cufinufft plan as a C caller makes them: its library's
    cufinufft[f]_setpts and cufinufft[f]_execute through ctypes on prebuilt device pointers,
    without the Python API's per-call checks (the points and `out` already passed through
    plan.setpts and plan.execute once). None for a plan without that C interface (FINUFFT's
    Python calls cost microseconds against its milliseconds of work)."""
    if out is None or not hasattr(out, "__cuda_array_interface__") or \
            not all(hasattr(plan, n) for n in ("_plan", "_setpts", "_exec_plan")):
        return None

    def ptr(x):
        return x.__cuda_array_interface__["data"][0]
    # the Python API passes the axes reversed: (z, y, x) for setpts(x, y, z)
    axes = [ptr(c) for c in reversed(coords)] + [None] * (3 - len(coords))
    m, p, f, sp = coords[0].shape[0], plan._plan, plan._exec_plan, plan._setpts
    c, fk = (ptr(data), ptr(out)) if adjoint else (ptr(out), ptr(data))

    def setpts():
        if sp(p, m, axes[0], axes[1], axes[2], 0, None, None, None) != 0:
            raise RuntimeError("cufinufft setpts failed")

    def execute():
        if f(p, c, fk) != 0:
            raise RuntimeError("cufinufft execute failed")
    return setpts, execute


def precisions(target):
    """complex64 while single precision can plausibly reach the target, complex128 always."""
    return (["complex64"] if target >= 2e-6 else []) + ["complex128"]
