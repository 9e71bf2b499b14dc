#!/usr/bin/env python3
"""kray from Python against the peers' own Python APIs, on one GPU, in one run.

Cases (each prints one JSON line; --cases picks them):
  overhead  per-call cost of the binding, medians of tight loops: a 1x1 matrix operator applied
            with a preallocated output (NumPy; PyTorch CPU tensors; a new output each call) and
            through kray.torch (autograd), against the same C call made with ctypes directly
            on prebuilt descriptors (the floor of any ctypes binding); a tiny NUFFT adjoint on
            CuPy arrays and on PyTorch CUDA tensors against its bare C call
  fbp       2-D parallel FBP, 512^2 from 720 views of 512 pixels (ram-lak), as `kray bench
            fbp2d`: kray.ct.FbpPlan on device arrays; host to host on the CUDA plan (NumPy in,
            NumPy out into a reused image, as the C benchmark reuses its buffers; a new image
            each call; through CuPy as on 2026-11-27), against ASTRA FBP_CUDA (host data, as
            ASTRA's Python API keeps them)
  fdk       FDK 512^3 from the RabbitCT-sized scan of `kray bench fdk` (496 views of 1248 x 960,
            source 750 mm, detector 1200 mm): kray.ct.FdkPlan on device arrays and on NumPy
            arrays, against ASTRA FDK_CUDA (host data)
  cone      cone-beam forward projection, same geometry: kray.ct.Projector (joseph) on device
            arrays, against ASTRA FP3D_CUDA (host data objects; and device arrays through
            astra.experimental.direct_FP3D when that API is there)
  nufft     NUFFT 2-D radial (256^2, 402 spokes x 512) and 3-D (128^3, 2.1 M random points),
            coordinates rounded to float32 values as `kray bench nufft`'s are; forward and
            adjoint, at 1e-3 and 1e-6, data on the device: kray.mri.NufftPlan against
            cufinufft.Plan with its documented options swept (gpu_method 1/2(/3 for a
            3-D adjoint), upsampfac 2.0/1.25, complex64 and complex128, and its eps at the
            target and 2, 4 and 10 times below it, since its measured error exceeds its eps);
            on each side the fastest setting whose measured error meets the target wins (kray:
            complex64 and complex128, sigma (grid oversampling) 2.0 and 1.25, its eps at the
            target and 2, 4 and 10 times above it); errors over the whole output against a
            complex128 kray plan at 1e-12. Times are reported as the median and the best (min)
            of the runs; both sides' settings also time their library's bare C call
            (kr_nufft_forward or _adjoint, cufinufft[f]_execute) through ctypes on prebuilt
            pointers, so each binding's share is measured at each size: kray_lead compares the
            Python calls, kray_lead_bare the C calls
  c         with --kray PATH (the kray command of the same build): the C benchmarks of the
            same cases in the same session, their JSON lines under "c_bench" (fbp2d with ASTRA,
            fdk host to host with ASTRA, nufft with cuFINUFFT), for the "in C" column
Times: median and spread (min, max) of --reps runs after warm-up calls, each run followed by a
device synchronisation; the same steps on both sides. Needs CuPy, and astra / cufinufft for the
peer lines (missing peers print an "error" line).
"""
import argparse
import ctypes
import itertools
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_astra_cone import run_times  # noqa: E402
from peer_nufft_common import bare_calls  # noqa: E402
import astra_cone_geom  # noqa: E402


def timed(run, sync, reps, warm=1):
    """Median, min and max of `reps` runs after `warm` warm-up runs (run_times does one; host
    arrays are page-locked on their second use, so host-to-host cases warm up twice)."""
    for _ in range(warm - 1):
        run()
    sync()
    ts = run_times(run, sync, reps)
    return {"median_ms": 1e3 * ts[len(ts) // 2], "min_ms": 1e3 * ts[0], "max_ms": 1e3 * ts[-1],
            "reps": len(ts)}


def emit(d):
    print(json.dumps(d), flush=True)


def _loop(f, n):
    """Median over 5 rounds of the time per call (us) of n calls of f()."""
    t = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        t.append((time.perf_counter() - t0) / n)
    t.sort()
    return 1e6 * t[2]


def case_overhead(a):
    import kray
    from kray import _lib
    from kray._array import arg, redim
    op = kray.Linop.matrix(np.ones((1, 1), np.float32))
    x = np.ones(1, np.float32)
    y = np.zeros(1, np.float32)
    n = 20000
    xa, ya = arg(x), arg(y)
    raw = _lib.lib.kr_linop_forward
    p, xr, yr = op.ptr, ctypes.byref(xa.c), ctypes.byref(ya.c)
    r = {"case": "overhead", "kray_call_us": _loop(lambda: op.forward(x, out=y), n),
         "kray_call_new_output_us": _loop(lambda: op.forward(x), n),
         "ctypes_floor_us": _loop(lambda: raw(p, xr, yr), n)}
    r["binding_us"] = r["kray_call_us"] - r["ctypes_floor_us"]
    try:
        import torch
        import kray.torch as kt
        xt, yt = torch.ones(1), torch.zeros(1)
        r["kray_call_torch_cpu_us"] = _loop(lambda: op.forward(xt, out=yt), n)
        m, xg = kt.Operator(op), torch.ones(1, requires_grad=True)
        r["kray_torch_autograd_forward_us"] = _loop(lambda: m(xg), n // 4)
    except Exception as e:  # noqa: BLE001
        r["torch_error"] = "%s: %s" % (type(e).__name__, e)
    try:   # a device call: a tiny NUFFT adjoint on CuPy arrays, wrapper against the bare call
        import kray.mri as mri
        cp, sync = _cupy()
        k = cp.asarray(mri.traj.radial(8, 2))
        plan = mri.NufftPlan((8, 8), k, dtype=np.complex64, eps=1e-3, device=0)
        yd = cp.ones(k.shape[:-1], cp.complex64)
        od = plan.adjoint(yd)
        ya, oa = arg(yd), arg(od)
        redim(ya, [16, 1])
        redim(oa, [8, 8, 1])
        rawn = _lib.lib.kr_nufft_adjoint
        pp, yr, orr = plan.ptr, ctypes.byref(ya.c), ctypes.byref(oa.c)
        n = 2000
        r["nufft_device_call_us"] = _loop(lambda: plan.adjoint(yd, out=od), n)
        r["nufft_device_bare_call_us"] = _loop(lambda: rawn(pp, yr, orr), n)
        sync()
        try:
            import torch
            yt = torch.ones(k.shape[:-1], dtype=torch.complex64, device="cuda")
            ot = torch.zeros((8, 8), dtype=torch.complex64, device="cuda")
            r["nufft_device_call_torch_us"] = _loop(lambda: plan.adjoint(yt, out=ot), n)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001
            r["nufft_torch_error"] = "%s: %s" % (type(e).__name__, e)
    except Exception as e:  # noqa: BLE001
        r["nufft_error"] = "%s: %s" % (type(e).__name__, e)
    emit(r)


def _cupy():
    import cupy as cp
    return cp, cp.cuda.runtime.deviceSynchronize


def case_fbp(a):
    import kray
    import kray.ct
    import kray.phantom
    cp, sync = _cupy()
    n, nviews, ndet = 512, 720, 512
    g = kray.ct.Geometry.parallel(det_count=ndet, image_shape=(n, n), nviews=nviews,
                                  stop_deg=180.0)
    x = kray.phantom.shepp_logan((n, n))
    sino = kray.ct.Projector(g).forward(x)
    plan = kray.ct.FbpPlan(g, device=0)
    sd = cp.asarray(sino)
    out = cp.empty((n, n), cp.float32)
    r = {"case": "fbp", "size": n, "views": nviews, "det": ndet}
    r["kray_device"] = timed(lambda: plan.execute(sd, out=out), sync, a.reps)
    # host to host on the CUDA plan: NumPy in, NumPy out (staged through the plan's device
    # buffers; the reused sinogram and image are page-locked from their second call)
    img = np.empty((n, n), np.float32)
    r["kray_host_to_host"] = timed(lambda: plan.execute(sino, out=img), sync, a.reps, warm=2)
    r["kray_host_to_host_new_output"] = timed(lambda: plan.execute(sino), sync, a.reps, warm=2)
    # the 2026-11-27 way: NumPy -> CuPy -> plan -> NumPy
    r["kray_host_to_host_cupy"] = timed(
        lambda: cp.asnumpy(plan.execute(cp.asarray(sino), out=out)), sync, a.reps)
    r["agreement_host_vs_device"] = float(np.abs(img - cp.asnumpy(out)).max())
    try:
        import astra
        pg = astra.create_proj_geom("parallel", 1.0, ndet,
                                    np.linspace(0, np.pi, nviews, endpoint=False))
        vg = astra.create_vol_geom(n, n)
        sid = astra.data2d.create("-sino", pg, sino)
        rid = astra.data2d.create("-vol", vg, 0)
        alg = astra_cone_geom.algorithm(astra, "FBP_CUDA", ProjectionDataId=sid,
                                        ReconstructionDataId=rid,
                                        option={"FilterType": "ram-lak"})
        r["astra_FBP_CUDA_host"] = timed(lambda: astra.algorithm.run(alg), sync, a.reps)
        r["astra_version"] = astra.__version__
    except Exception as e:  # noqa: BLE001
        r["astra_error"] = "%s: %s" % (type(e).__name__, e)
    emit(r)


def _cone_setup(n=256, nviews=360, det=384):
    """(cupy, sync, the cone geometry, the phantom volume, a CUDA projector)."""
    import kray.ct
    import kray.phantom
    cp, sync = _cupy()
    g = kray.ct.Geometry.cone(det_shape=(det, det), volume_shape=(n, n, n), sod_mm=1000.0,
                              sdd_mm=1500.0, voxel_mm=1.0, det_spacing_mm=1.5 * 1.0 * 1.0,
                              nviews=nviews)
    return cp, sync, g, kray.phantom.shepp_logan((n, n, n)), kray.ct.Projector(g, device=0)


def _astra_cone(g, r, run):
    """run(astra, proj_geom, vol_geom, (nviews, nu, nv)) on ASTRA's geometries of g; an
    exception becomes r["astra_error"]."""
    path = "/tmp/kray_py_cone.json"
    g.write(path, explicit_views=True)
    try:
        astra, _, pgeom, vgeom, size, nv, (nu, nvr) = astra_cone_geom.load(path)
        run(astra, pgeom, vgeom, (nv, nu, nvr))
    except Exception as e:  # noqa: BLE001
        r["astra_error"] = "%s: %s" % (type(e).__name__, e)


def case_fdk(a):
    import kray.ct
    cp, sync = _cupy()
    n, nviews, nu, nv = 512, 496, 1248, 960
    g = kray.ct.Geometry.cone(det_shape=(nv, nu), volume_shape=(n, n, n), sod_mm=750.0,
                              sdd_mm=1200.0, voxel_mm=256.0 / n, nviews=nviews,
                              det_spacing_mm=(399.36 / nu, 307.2 / nv))
    # the synthetic projections of `kray bench fdk`
    u, v, m = np.arange(nu), np.arange(nv), np.arange(nviews)
    proj = (1.0 + 0.5 * np.sin(0.01 * u)[None, None, :] * np.cos(0.013 * v)[None, :, None] +
            1e-3 * m[:, None, None]).astype(np.float32)
    plan = kray.ct.FdkPlan(g, device=0)
    pd = cp.asarray(proj)
    out = cp.empty((n, n, n), cp.float32)
    r = {"case": "fdk", "volume": n, "views": nviews, "det": [nu, nv]}
    r["kray_device"] = timed(lambda: plan.execute(pd, out=out), sync, a.reps)
    pd = None   # free the device copy before the host-to-host runs
    vol = np.empty((n, n, n), np.float32)   # reused, as the C benchmark reuses its output
    # the reused volume is page-locked from its second call on
    r["kray_host_to_host"] = timed(lambda: plan.execute(proj, out=vol), sync, a.reps, warm=2)
    r["kray_host_to_host_new_output"] = timed(lambda: plan.execute(proj), sync, a.reps)

    def astra_fdk(astra, pgeom, vgeom, dims):
        p = np.ascontiguousarray(proj.transpose(1, 0, 2))
        pid = astra.data3d.create("-proj3d", pgeom, p)
        rid = astra.data3d.create("-vol", vgeom, 0)
        alg = astra_cone_geom.algorithm(astra, "FDK_CUDA", ProjectionDataId=pid,
                                        ReconstructionDataId=rid)
        r["astra_FDK_CUDA_host"] = timed(lambda: astra.algorithm.run(alg), sync, a.reps)
        rec = astra.data3d.get(rid)
        k = cp.asnumpy(out)
        r["agreement_rel_l2"] = float(np.linalg.norm(rec - k) / np.linalg.norm(k))
        astra.algorithm.delete(alg)
        astra.data3d.delete([pid, rid])
    _astra_cone(g, r, astra_fdk)
    emit(r)


def case_cone(a):
    cp, sync, g, vol, pj = _cone_setup()
    vd = cp.asarray(vol)
    out = cp.empty(g.sino_shape, cp.float32)
    r = {"case": "cone_forward", "volume": 256, "views": 360, "det": 384}
    r["kray_device"] = timed(lambda: pj.forward(vd, out=out), sync, a.reps)
    r["kray_adjoint_device"] = timed(lambda: pj.adjoint(out, out=vd), sync, a.reps)

    def astra_fp(astra, pgeom, vgeom, dims):
        nv, nu, nvr = dims
        vid = astra.data3d.create("-vol", vgeom, vol)
        pid = astra.data3d.create("-proj3d", pgeom, 0)
        alg = astra_cone_geom.algorithm(astra, "FP3D_CUDA", VolumeDataId=vid,
                                        ProjectionDataId=pid)
        r["astra_FP3D_CUDA_host"] = timed(lambda: astra.algorithm.run(alg), sync, a.reps)
        try:
            from astra import experimental as ex
            vlink = astra.data3d.GPULink(vd.data.ptr, 256, 256, 256, 256 * 4)
            po = cp.zeros((nvr, nv, nu), cp.float32)
            plink = astra.data3d.GPULink(po.data.ptr, nu, nv, nvr, nu * 4)
            vd[...] = cp.asarray(vol)
            r["astra_direct_FP3D_device"] = timed(
                lambda: ex.direct_FP3D(astra.create_projector("cuda3d", pgeom, vgeom), vlink,
                                       plink), sync, a.reps)
        except Exception as e:  # noqa: BLE001
            r["astra_direct_error"] = "%s: %s" % (type(e).__name__, e)
    _astra_cone(g, r, astra_fp)
    emit(r)


def _nufft_points(ndim, rng):
    """The points of `kray bench nufft`'s cases, rounded to float32 values as that benchmark's
    are: each library's complex64 setting then sees the same coordinates as its complex128 one
    and the reference, and only the arithmetic's precision separates them (with coordinates
    up to 64 cycles, rounding them to float32 alone costs about 2.6e-6 of relative error)."""
    if ndim == 2:
        nsp, ns = 402, 512
        ang = np.pi * np.arange(nsp) / nsp
        rad = np.arange(ns) - ns // 2
        k = np.zeros((nsp, ns, 3))
        k[..., 0] = rad[None, :] * np.cos(ang)[:, None] * 256 / 512
        k[..., 1] = rad[None, :] * np.sin(ang)[:, None] * 256 / 512
        k = k.reshape(-1, 3)
    else:
        k = rng.uniform(-64, 64, (2_100_000, 3))
    return k.astype(np.float32).astype(np.float64)


def _bare(p, direction, x, o):
    """The bare C call of NUFFT plan p on prebuilt descriptors of x and o (as the plan's own
    forward/adjoint would pass them)."""
    from kray import _lib
    from kray._array import arg, redim
    xa, oa = arg(x), arg(o)
    if direction == "adjoint":
        redim(xa, p._kksp)
        redim(oa, p._kimg)
        f = _lib.lib.kr_nufft_adjoint
    else:
        redim(oa, p._kksp)
        f = _lib.lib.kr_nufft_forward
    pp, xr, orr = p.ptr, ctypes.byref(xa.c), ctypes.byref(oa.c)
    return lambda: f(pp, xr, orr)


def _kray_nufft(mri, shape, k, kd, inp, direction, eps, err, sync, reps):
    """kray's settings (complex64, complex128, grid oversampling 2 and 1.25) for one case,
    each timed and scored (or refused: a complex64 plan below its rounding floor)."""
    import kray
    out = []
    for dt, sigma, keps in itertools.product((np.complex64, np.complex128), (2.0, 1.25),
                                             (eps, 2 * eps, 4 * eps, 10 * eps)):
        if dt == np.complex64 and keps < 1e-6:   # kray's error is below its eps too
            continue
        t0 = time.perf_counter()
        try:
            p = mri.NufftPlan(shape, kd if dt == np.complex64 else k, dtype=dt, eps=keps,
                              sigma=sigma, device=0)
        except kray.InvalidArgumentError as e:   # below complex64's floor on this grid
            out.append({"dtype": np.dtype(dt).name, "sigma": sigma, "eps": keps,
                        "refused": str(e)})
            continue
        sync()
        setup = time.perf_counter() - t0
        x = _cupy()[0].asarray(inp.astype(dt))
        f = p.adjoint if direction == "adjoint" else p.forward
        o = f(x)
        out.append({"dtype": np.dtype(dt).name, "sigma": sigma, "eps": keps,
                    "time": timed(lambda: f(x, out=o), sync, reps),
                    "bare_c_call": timed(_bare(p, direction, x, o), sync, reps),
                    "setup_with_points_ms": 1e3 * setup, "rel_err": err(o)})
        p.close()
    return out


def _cufinufft(cufinufft, shape, k, inp, direction, eps, err, sync, reps):
    """cuFINUFFT's documented options swept for one case, each timed and scored."""
    cp = _cupy()[0]
    ndim = len(shape)
    nufft_type = 1 if direction == "adjoint" else 2
    isign = 1 if direction == "adjoint" else -1
    methods = (1, 2, 3) if (nufft_type == 1 and ndim == 3) else (1, 2)
    out = []
    for dt in (np.complex64, np.complex128):
        rdt = np.float32 if dt == np.complex64 else np.float64
        # modes in C order (z, y, x): the coordinates are given slowest axis first
        coords = [cp.asarray(2 * np.pi * k[:, d] / shape[ndim - 1 - d], dtype=rdt)
                  for d in reversed(range(ndim))]
        x = cp.asarray(inp.astype(dt))
        for meth in methods:
            for up in (2.0, 1.25):
                for ceps in (eps, eps / 2, eps / 4, eps / 10):
                    s = {"dtype": np.dtype(dt).name, "gpu_method": meth, "upsampfac": up,
                         "eps": ceps}
                    try:
                        t0 = time.perf_counter()
                        pl = cufinufft.Plan(nufft_type, tuple(shape), 1, ceps, isign,
                                            dtype=np.dtype(dt).name, gpu_method=meth,
                                            upsampfac=up)
                        pl.setpts(*coords)
                        sync()
                        s["plan_setpts_ms"] = 1e3 * (time.perf_counter() - t0)
                        o = pl.execute(x)
                        s["time"] = timed(lambda: pl.execute(x, out=o), sync, reps)
                        s["rel_err"] = err(o)
                        b = bare_calls(pl, coords, x, o, nufft_type == 1)
                        if b is not None:   # its C function, as kray's bare_c_call
                            s["bare_c_call"] = timed(b[1], sync, reps)
                            s["bare_rel_err"] = err(o)
                        pl = b = None   # free the plan before the next one
                    except Exception as e:  # noqa: BLE001
                        s["error"] = "%s: %s" % (type(e).__name__, e)
                    out.append(s)
    return out


def _fastest(sweep, eps, key="time"):
    ok = [s for s in sweep if key in s and s["rel_err"] <= eps]
    return min(ok, key=lambda s: s[key]["median_ms"]) if ok else None


def case_nufft(a):
    import kray.mri as mri
    cp, sync = _cupy()
    rng = np.random.default_rng(1)
    try:
        import cufinufft
        cuf_err = None
    except Exception as e:  # noqa: BLE001
        cufinufft, cuf_err = None, "%s: %s" % (type(e).__name__, e)
    for ndim in (2, 3):
        shape, k = ((256, 256), (128, 128, 128))[ndim - 2], _nufft_points(ndim, rng)
        M = k.shape[0]
        kd, k64 = cp.asarray(k.astype(np.float32)), cp.asarray(k)
        img = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        ksp = rng.standard_normal(M) + 1j * rng.standard_normal(M)
        ref = mri.NufftPlan(shape, k64, dtype=np.complex128, eps=1e-12, device=0)
        refs = {"forward": ref.forward(cp.asarray(img)), "adjoint": ref.adjoint(cp.asarray(ksp))}
        ref.close()
        for eps in (1e-3, 1e-6):
            for direction in ("adjoint", "forward"):
                want = refs[direction]
                inp = ksp if direction == "adjoint" else img

                def err(got):
                    return float(cp.linalg.norm(got - want) / cp.linalg.norm(want))
                r = {"case": "nufft", "ndim": ndim, "shape": list(shape), "points": M,
                     "eps": eps, "direction": direction}
                r["kray_sweep"] = _kray_nufft(mri, shape, k64, kd, inp, direction, eps, err,
                                              sync, a.reps)
                r["kray"] = _fastest(r["kray_sweep"], eps)
                if cufinufft is None:
                    r["cufinufft_error"] = cuf_err
                else:
                    r["cufinufft_sweep"] = _cufinufft(cufinufft, shape, k, inp, direction, eps,
                                                      err, sync, max(5, a.reps // 2))
                    r["cufinufft_best"] = _fastest(r["cufinufft_sweep"], eps)
                    if r["kray"] and r["cufinufft_best"]:
                        r["kray_lead"] = (r["cufinufft_best"]["time"]["median_ms"] /
                                          r["kray"]["time"]["median_ms"])
                    # both libraries' C calls (ctypes on prebuilt pointers), each side's
                    # fastest setting by that time: the lead without either Python API
                    kb = _fastest(r["kray_sweep"], eps, "bare_c_call")
                    cb = _fastest(r["cufinufft_sweep"], eps, "bare_c_call")
                    if kb and cb:
                        r["cufinufft_best_bare"] = cb
                        r["kray_lead_bare"] = (cb["bare_c_call"]["median_ms"] /
                                               kb["bare_c_call"]["median_ms"])
                emit(r)


def case_c(a):
    """The C benchmarks of the same cases, same session (the "in C" column)."""
    if not a.kray:
        emit({"case": "c_bench", "error": "--kray PATH (the kray command) is not given"})
        return
    here = os.path.dirname(os.path.abspath(__file__))
    cmds = [[a.kray, "bench", "fbp2d", "--backends", "cuda", "--precisions", "f32",
             "--cases", "sl", "--peers", "astra", "--peer-reps", "10", "--chart", "none",
             "--json"],
            [a.kray, "bench", "fdk", "--backend", "cuda", "--size", "512", "--host", "--json"],
            [a.kray, "bench", "fdk", "--backend", "cuda", "--size", "512", "--peer",
             os.path.join(here, "peer_astra_fdk.py"), "--json"],
            [a.kray, "bench", "nufft", "--backends", "cuda", "--peers", "cufinufft",
             "--reps", "20", "--python", sys.executable, "--json"]]
    for c in cmds:
        t0 = time.perf_counter()
        try:
            p = subprocess.run(c, capture_output=True, text=True, timeout=400)
            lines = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
            emit({"case": "c_bench", "cmd": " ".join(c[1:]), "rc": p.returncode,
                  "wall_s": time.perf_counter() - t0, "lines": lines,
                  "stderr_tail": p.stderr[-1500:]})
        except Exception as e:  # noqa: BLE001
            emit({"case": "c_bench", "cmd": " ".join(c[1:]), "error": "%s: %s" %
                  (type(e).__name__, e)})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="overhead,fbp,fdk,cone,nufft")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--kray", default=None, help="the kray command, for --cases c")
    a = ap.parse_args()
    import kray
    emit({"kray": kray.__version__, "features": kray.build_features,
          "device": kray.cuda_device_name(0) if kray.has_cuda() else None,
          "date": time.strftime("%Y-%m-%d")})
    for c in a.cases.split(","):
        try:
            globals()["case_" + c](a)
        except Exception as e:  # noqa: BLE001
            emit({"case": c, "error": "%s: %s" % (type(e).__name__, e)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
