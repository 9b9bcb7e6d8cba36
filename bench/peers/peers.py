#!/usr/bin/env python3
"""Time peer softmax implementations on the cases of `softmax bench`.

Peers (GPU mode, the default):
  torch          torch.softmax / torch.log_softmax (eager); backward ops with
                 torch._softmax_backward_data / _log_softmax_backward_data
                 (autograd when those are missing)
  torch.compile  the same op through torch.compile (mode
                 max-autotune-no-cudagraphs, falling back to the default mode)
  triton         a fused kernel in the style of the Triton tutorial: one
                 program per row, a persistent grid over the rows, masked
                 power-of-two blocks; last-axis rows that fit one block only,
                 tensors under 2^31 elements (its int32 offsets overflow
                 past that: an illegal address that poisons the process's
                 CUDA context)
  cudnn          cuDNN's legacy cudnnSoftmaxForward / cudnnSoftmaxBackward
                 (algorithm ACCURATE, or LOG for the log ops) through ctypes,
                 from the libcudnn that torch loaded (else the wheel's
                 site-packages/nvidia/cudnn/lib, else the loader's search);
                 the tensor as NCHW with N = the dimensions before the axis,
                 C = the axis, H = those after it, W = 1: INSTANCE mode when
                 H is 1 (last-axis rows), CHANNEL mode otherwise; on torch's
                 current stream, timed with CUDA events like the others;
                 tensors under 2^31 elements (cuDNN's descriptor limit; past
                 it the library crashes)
  jax            jax.nn.softmax / jax.nn.log_softmax under jax.jit on the
                 same shapes and dtypes (XLA_PYTHON_CLIENT_PREALLOCATE=false
                 so that JAX and torch share the GPU's memory); backward ops
                 through jax.vjp: the vjp function of the forward op at x
                 (its residuals computed once, outside the timing) applied to
                 dy under jax.jit. The inputs are made by torch on the device
                 and handed over by DLPack (no host copy, none in the timed
                 span). JAX runs on its own CUDA stream, which torch's events
                 cannot bracket, so it is timed by the wall clock: --reps
                 calls dispatched back to back (JAX's async dispatch queues
                 them) and one block_until_ready after the last, the elapsed
                 time divided by the calls; the median of 5 such rounds. In
                 place of the L2 flush each call reads its own copy of the
                 inputs, rotating through enough copies to cover 256 MB (at
                 most 1024), so no call finds its inputs in the L2. A call
                 costs the host a few µs of dispatch, so cases faster than
                 that read the dispatch rate, not the kernel; aligned
                 tensors only (XLA places its own outputs).
Loss ops (--op cross_entropy or logsumexp, or as a SPEC's op; the class
axis last): peers torch (eager) and torch.compile, on the GPU and with
--cpu. cross_entropy times F.cross_entropy (torch's defaults: mean,
ignore_index -100, targets uniform int64) forward and backward, the
gradient with respect to the logits by torch.autograd.grad; each such
case is followed by cross_entropy_forward, the forward alone. logsumexp
times torch.logsumexp along the last axis. The copy moves the op's
minimum traffic: the logits read (cross_entropy: and the gradient
written). The other GPU peers have no loss ops and are skipped with a note.

  python3 bench/peers/peers.py --shapes 4096x32000:f32,8192x131072:bf16 --op cross_entropy --peers torch,torch.compile --out peers-ce.json
  python3 bench/peers/peers.py --cpu --threads 2 --shapes 4096x32000:f32 --op cross_entropy --out peers-ce-cpu.json

Every peer is checked once against torch's result on the same inputs
(relative error ≤ 1e-3 f32, 2e-2 f16/bf16) before it is timed; a peer
that fails the check, or fails to load, is reported and skipped.

CPU mode (--cpu): PyTorch's CPU softmax (peer "torch") with --threads N
intra-op threads (torch.set_num_threads; default 2: give the GOMAXPROCS of
the `softmax bench --device cpu` run it is compared with). Each rep is timed
with time.perf_counter. The op writes into a preallocated output through
the ATen out= overloads (aten._softmax.out, _log_softmax.out,
_softmax_backward_data.out, _log_softmax_backward_data.out), as `softmax
bench` does, so a rep is the kernel and not a fresh allocation and its page
faults; where an overload is missing, the plain call (torch.softmax, ...)
is timed instead, with a note. Like bench/cpu.go, a case whose tensors are
smaller than 64 MiB rotates through enough copies of them to cover 64 MiB
(at most 64), so that each rep reads its inputs from memory, not from the
caches of the previous rep; the reference copy (a torch copy_ of the op's
minimum traffic, half read and half written, on the same threads) rotates
the same way. Records carry device "cpu <model> (torch <version>, N
threads)" and merge with the CPU bench's records by case.

Each case is timed like triton.testing.do_bench: warm-up runs, then --reps
runs each timed with CUDA events (the L2 cache is flushed before each rep
unless --no-flush), and the median is kept. In the same run a device copy of
the op's minimum traffic (forward: 2 tensors, backward: 3; half read, half
written) is timed the same way.

Cases are the SPECs of `softmax bench` (DIMxDIM[x...]:dtype[:axis[:op]]):

  python3 bench/peers/peers.py --shapes 4096x32000:f32,128x128256:bf16 --out peers.json
  python3 bench/peers/peers.py --suite quick --softmax-bin ./softmax --out peers.json
  python3 bench/peers/peers.py --cpu --threads 2 --suite cpu --out peers-cpu.json
  softmax bench --suite quick --peers peers.json
  softmax bench --device cpu --suite cpu --peers peers-cpu.json

The output is a JSON array of records
{shape, dtype, axis, op, peer, us, copy_us, device, spec[, offset]}.
The file is rewritten after every case, so a crash in a library keeps the
cases before it. Interrupted (Ctrl-C, or SIGTERM as timeout(1) sends), or
stopped by an unexpected error (a lost CUDA context ends the run: every
later call would fail), the script writes the records timed so far and
exits with status 1.

--offset N starts every tensor N elements past an aligned allocation,
as `softmax bench --offset N` places ours, so misaligned pointers meet the
peers' unaligned paths; the records carry "offset" and merge only with our
records of the same offset. torch then writes through the out= overloads
into an output at the same offset (at offset 0 it times the plain,
allocating call, as users write it; the caching allocator makes that
allocation cheap) and triton stores into one; the torch.compile peer's
output is its own (aligned) allocation.

  python3 bench/peers/peers.py --shapes 4096x4096:f16 --offset 1 --peers torch,triton --out peers-off1.json
  softmax bench --shapes 4096x4096:f16 --offset 1 --peers peers-off1.json
"""

import argparse
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

SOFTMAX_OPS = ("softmax", "log_softmax", "softmax_backward", "log_softmax_backward")
# The loss ops (class axis last): cross_entropy is F.cross_entropy's forward
# and backward (the gradient of the mean loss with respect to the logits),
# cross_entropy_forward the forward alone (timed beside every cross_entropy
# case), logsumexp torch.logsumexp. Peers: torch (eager) and torch.compile.
LOSS_OPS = ("cross_entropy", "cross_entropy_forward", "logsumexp")
OPS = SOFTMAX_OPS + LOSS_OPS
DTYPES = {"f32": "float32", "float32": "float32", "f16": "float16", "float16": "float16",
          "half": "float16", "bf16": "bfloat16", "bfloat16": "bfloat16", "f64": "float64", "float64": "float64"}
SHORT = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64"}

# Largest row (elements) the Triton peer handles in one block.
TRITON_MAX_BLOCK = 65536

# The Triton and cuDNN peers take tensors of fewer elements than this:
# Triton's int32 offsets overflow past it (an illegal address that poisons
# the CUDA context), cuDNN's tensor descriptors are limited to it.
MAX_ELEMS = 1 << 31

# Relative error ‖peer − reference‖ / ‖reference‖ a new peer must meet on
# its first call (the reference is the op in float32 by torch).
CHECK_TOL = {"float32": 1e-4, "float16": 5e-3, "bfloat16": 2e-2, "float64": 1e-4}


def note(msg):
    print("peers: " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- cases

class Case:
    """One benchmark case, parsed from a SPEC as `softmax bench` does."""

    def __init__(self, shape, dtype, axis, op):
        self.shape, self.dtype, self.axis, self.op = list(shape), dtype, axis, op

    @property
    def norm_axis(self):
        return self.axis + len(self.shape) if self.axis < 0 else self.axis

    @property
    def backward(self):
        return self.op.endswith("_backward")

    @property
    def log(self):
        return self.op.startswith("log_")

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def elem_size(self):
        return {"float32": 4, "float64": 8}.get(self.dtype, 2)

    @property
    def loss(self):
        return self.op in LOSS_OPS

    def traffic(self):
        """Minimum bytes moved: forward 2 tensors, backward 3; the loss ops
        read the logits (cross_entropy also writes the gradient)."""
        if self.loss:
            return (2 if self.op == "cross_entropy" else 1) * self.numel() * self.elem_size()
        return (3 if self.backward else 2) * self.numel() * self.elem_size()

    def spec(self):
        s = "x".join(str(d) for d in self.shape) + ":" + SHORT[self.dtype]
        if self.op != "softmax":
            return s + ":%d:%s" % (self.axis, self.op)
        if self.axis != -1:
            s += ":%d" % self.axis
        return s

    def __str__(self):
        return self.spec()


def parse_spec(s):
    fields = s.strip().split(":")
    if not 2 <= len(fields) <= 4:
        raise ValueError("bad shape spec %r (want DIMxDIM[x...]:dtype[:axis[:op]])" % s)
    try:
        shape = [int(d) for d in fields[0].replace("\u00d7", "x").split("x")]
    except ValueError:
        raise ValueError("bad shape spec %r: dimensions must be integers" % s)
    if any(d <= 0 for d in shape):
        raise ValueError("bad shape spec %r: dimensions must be positive" % s)
    dt = DTYPES.get(fields[1].strip())
    if dt is None:
        raise ValueError("bad shape spec %r: unknown dtype %r (want f32, f16, bf16 or f64)" % (s, fields[1]))
    axis = int(fields[2]) if len(fields) >= 3 else -1
    if not -len(shape) <= axis < len(shape):
        raise ValueError("bad shape spec %r: axis %d out of range" % (s, axis))
    op = fields[3].strip() if len(fields) == 4 else "softmax"
    if op not in OPS:
        raise ValueError("bad shape spec %r: unknown op %r" % (s, op))
    if op in LOSS_OPS and axis not in (-1, len(shape) - 1):
        raise ValueError("bad shape spec %r: %s runs along the last (class) axis" % (s, op))
    return Case(shape, dt, axis, op)


def with_loss_forward(cases):
    """Each cross_entropy case followed by its forward alone."""
    out = []
    for c in cases:
        out.append(c)
        if c.op == "cross_entropy":
            out.append(Case(c.shape, c.dtype, c.axis, "cross_entropy_forward"))
    return out


def parse_specs(text):
    return [parse_spec(s) for s in text.split(",") if s.strip()]


def suite_specs(name, softmax_bin):
    """Asks `softmax bench --list-suite NAME` for the suite's SPECs."""
    cwd = None
    if softmax_bin:
        cmd = [softmax_bin]
    else:
        cmd = ["go", "run", "./cmd/softmax"]
        cwd = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the module root
    out = subprocess.run(cmd + ["bench", "--list-suite", name], check=True, cwd=cwd,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    return out.strip()


# ---------------------------------------------------------------- timing

class GPUTimer:
    """triton.testing.do_bench-style timing with CUDA events."""

    def __init__(self, torch, warmup, reps, flush):
        self.torch, self.warmup, self.reps = torch, warmup, reps
        self.cache = None
        if flush:
            # Larger than the L2 of any current GPU (H100: 50 MB).
            self.cache = torch.empty(256 << 20, dtype=torch.int8, device="cuda")

    def __call__(self, fn):
        torch = self.torch
        fn()
        torch.cuda.synchronize()
        for _ in range(self.warmup):
            fn()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(self.reps)]
        for i in range(self.reps):
            if self.cache is not None:
                self.cache.zero_()
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        ms = [s.elapsed_time(e) for s, e in zip(starts, ends)]
        return statistics.median(ms) * 1e3  # µs


class CPUTimer:
    """Median of time.perf_counter around single calls."""

    def __init__(self, warmup, reps):
        self.warmup, self.reps = warmup, reps

    def __call__(self, fn):
        fn()
        for _ in range(self.warmup):
            fn()
        ts = []
        for _ in range(self.reps):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts) * 1e6  # µs


# ---------------------------------------------------------------- peers

def at_offset(torch, c, device, offset):
    """An uninitialised tensor of the case's shape and dtype whose data starts
    offset elements into a fresh allocation (the allocator's blocks are
    aligned, so offset·size bytes past a 16-byte boundary)."""
    n = c.numel()
    buf = torch.empty(offset + n, device=device, dtype=getattr(torch, c.dtype))
    return buf[offset:].view(c.shape)


def make_inputs(torch, c, device, offset=0):
    dt = getattr(torch, c.dtype)
    x = (torch.rand(c.shape, device=device, dtype=torch.float32) * 8 - 4).to(dt)
    if c.backward:
        y = torch.log_softmax(x, dim=c.axis) if c.log else torch.softmax(x, dim=c.axis)
        dy = (torch.rand(c.shape, device=device, dtype=torch.float32) * 8 - 4).to(dt)
        pair = (y, dy)
    else:
        pair = (x, None)
    if offset == 0:
        return pair
    return tuple(t if t is None else at_offset(torch, c, device, offset).copy_(t) for t in pair)


def torch_op(torch, c, a, b, offset=0):
    """The eager PyTorch op as a closure; with an offset, writing through the
    out= overloads into an output at that offset (torch_out_call)."""
    dim = c.axis
    if offset:
        fn, how = torch_out_call(torch, c, a, b, at_offset(torch, c, a.device, offset))
        if how != "out=":
            note("%s: torch: no out= overload, timing the allocating call (aligned output)" % c)
        return fn
    if not c.backward:
        f = torch.log_softmax if c.log else torch.softmax
        return lambda: f(a, dim=dim)
    y, dy = a, b
    bwd = torch._log_softmax_backward_data if c.log else torch._softmax_backward_data
    try:
        bwd(dy, y, dim, y.dtype)
        return lambda: bwd(dy, y, dim, y.dtype)
    except (TypeError, RuntimeError, AttributeError):
        pass
    # Autograd: recompute a forward whose output is y, then time backward only.
    x = y.detach().clone().requires_grad_(True)
    out = torch.log_softmax(x, dim=dim) if c.log else torch.softmax(x, dim=dim)
    return lambda: torch.autograd.grad(out, x, dy, retain_graph=True)


def compiled_op(torch, c, a, b, offset=0):
    # offset is unused: the compiled function allocates its own (aligned)
    # output; its inputs are a and b as placed.
    dim = c.axis
    if not c.backward:
        if c.log:
            def f(x):
                return torch.log_softmax(x, dim=dim)
        else:
            def f(x):
                return torch.softmax(x, dim=dim)
        args = (a,)
    else:
        if c.log:
            def f(y, dy):
                yf, dyf = y.float(), dy.float()
                return (dyf - torch.exp(yf) * dyf.sum(dim, keepdim=True)).to(y.dtype)
        else:
            def f(y, dy):
                yf, dyf = y.float(), dy.float()
                return (yf * (dyf - (dyf * yf).sum(dim, keepdim=True))).to(y.dtype)
        args = (a, b)
    # Each case gets a fresh, static-shape compile: f's code object is the
    # same for every case, so without the reset Dynamo would pile the
    # cases' graphs onto one cache entry, switch to dynamic shapes after
    # the second shape and fall back to eager past its recompile limit.
    torch._dynamo.reset()
    last = None
    for mode in ("max-autotune-no-cudagraphs", None):
        try:
            g = torch.compile(f, mode=mode, dynamic=False) if mode else torch.compile(f, dynamic=False)
            g(*args)  # compile now, not inside the timing
            return lambda: g(*args)
        except Exception as e:  # noqa: BLE001 - any compile failure skips the mode
            last = e
    raise RuntimeError("torch.compile failed: %s" % last)


_triton = None


def load_triton():
    """Defines the Triton kernels; returns None (with a note) when Triton is missing."""
    global _triton
    if _triton is not None:
        return _triton or None
    try:
        import triton
        import triton.language as tl
    except Exception as e:  # noqa: BLE001 - ImportError or a broken install
        note("triton not available (%s): skipping the triton peer" % e)
        _triton = False
        return None

    @triton.jit
    def softmax_fwd(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                    LOG: tl.constexpr, BLOCK: tl.constexpr):
        start = tl.program_id(0)
        step = tl.num_programs(0)
        for row in range(start, n_rows, step):
            offs = tl.arange(0, BLOCK)
            mask = offs < n_cols
            x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
            m = tl.max(x, axis=0)
            z = x - m
            e = tl.exp(z)
            s = tl.sum(e, axis=0)
            if LOG:
                y = z - tl.log(s)
            else:
                y = e / s
            tl.store(out_ptr + row * out_stride + offs, y.to(out_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def softmax_bwd(dx_ptr, y_ptr, dy_ptr, stride, n_rows, n_cols,
                    LOG: tl.constexpr, BLOCK: tl.constexpr):
        start = tl.program_id(0)
        step = tl.num_programs(0)
        for row in range(start, n_rows, step):
            offs = tl.arange(0, BLOCK)
            mask = offs < n_cols
            y = tl.load(y_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
            if LOG:
                s = tl.sum(dy, axis=0)
                dx = dy - tl.exp(y) * s
            else:
                s = tl.sum(dy * y, axis=0)
                dx = y * (dy - s)
            tl.store(dx_ptr + row * stride + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)

    _triton = (triton, softmax_fwd, softmax_bwd)
    return _triton


def triton_op(torch, c, a, b, offset=0):
    t = load_triton()
    if t is None:
        return None
    triton, fwd, bwd = t
    if c.norm_axis != len(c.shape) - 1:
        raise NotImplementedError("triton peer: last axis only")
    if c.numel() >= MAX_ELEMS:
        raise NotImplementedError("triton peer: %d elements (its int32 offsets overflow from 2^31)" % c.numel())
    n_cols = c.shape[-1]
    n_rows = c.numel() // n_cols
    block = triton.next_power_of_2(n_cols)
    if block > TRITON_MAX_BLOCK:
        raise NotImplementedError("triton peer: row of %d does not fit a block (max %d)" % (n_cols, TRITON_MAX_BLOCK))
    num_warps = 4 if block < 2048 else 8 if block < 4096 else 16
    props = torch.cuda.get_device_properties(a.device)
    # Persistent grid: a few programs per SM (the tutorial derives the
    # count from the kernel's registers and shared memory; a fixed 4 warps
    # groups' worth per SM is close for these block sizes).
    per_sm = max(1, 32 // num_warps)
    programs = max(1, min(n_rows, props.multi_processor_count * per_sm))
    grid = (programs,)
    if not c.backward:
        x = a.reshape(n_rows, n_cols)
        y = at_offset(torch, c, a.device, offset).reshape(n_rows, n_cols)
        return lambda: fwd[grid](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                 LOG=c.log, BLOCK=block, num_warps=num_warps)
    y, dy = a.reshape(n_rows, n_cols), b.reshape(n_rows, n_cols)
    dx = at_offset(torch, c, a.device, offset).reshape(n_rows, n_cols)
    return lambda: bwd[grid](dx, y, dy, y.stride(0), n_rows, n_cols,
                             LOG=c.log, BLOCK=block, num_warps=num_warps)


# ---------------------------------------------------------------- checks

def reference(torch, c, a, b):
    """The op in float32 by torch on the case's inputs (x; or y and dy)."""
    dim = c.norm_axis
    if not c.backward:
        xf = a.float()
        return torch.log_softmax(xf, dim=dim) if c.log else torch.softmax(xf, dim=dim)
    y, dy = a.float(), b.float()
    if c.log:
        return dy - torch.exp(y) * dy.sum(dim, keepdim=True)
    return y * (dy - (dy * y).sum(dim, keepdim=True))


def check_result(torch, c, name, out, ref):
    """Raises when out is farther than CHECK_TOL from ref (norm-wise)."""
    out, ref = out.float().reshape(ref.shape), ref.float()
    den = torch.linalg.vector_norm(ref).item()
    err = torch.linalg.vector_norm(out - ref).item() / (den if den > 0 else 1.0)
    if not err <= CHECK_TOL[c.dtype]:  # also NaN
        raise RuntimeError("%s peer: wrong result: relative error %.3g against torch's float32 (tolerance %g)"
                           % (name, err, CHECK_TOL[c.dtype]))


# ---------------------------------------------------------------- cuDNN

# cuDNN's enums (cudnn_ops.h, cudnn_graph.h).
CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG = 1, 2
CUDNN_SOFTMAX_MODE_INSTANCE, CUDNN_SOFTMAX_MODE_CHANNEL = 0, 1
CUDNN_TENSOR_NCHW = 0
CUDNN_DATA = {"float32": 0, "float16": 2, "bfloat16": 9}  # FLOAT, HALF, BFLOAT16

_cudnn = None


def cudnn_candidates(torch):
    """Paths to try for libcudnn, best first: the one torch loaded (from
    /proc/self/maps), the wheels' folders on sys.path, the loader's names."""
    import glob
    import site
    out = []
    try:
        torch.backends.cudnn.version()  # makes sure torch has loaded it
    except Exception:  # noqa: BLE001 - a torch without cuDNN: search on
        pass
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if line.strip() else ""
                if "/libcudnn.so" in path and path not in out:
                    out.append(path)
    except OSError:
        pass
    dirs = list(sys.path)
    try:
        dirs += site.getsitepackages() + [site.getusersitepackages()]
    except Exception:  # noqa: BLE001 - virtualenvs without site functions
        pass
    for d in dirs:
        for sub in ("nvidia/cudnn/lib", "nvidia/cu13/lib", "nvidia/cu12/lib", "torch/lib"):
            for path in sorted(glob.glob(os.path.join(d, sub, "libcudnn.so*")), reverse=True):
                if path not in out:
                    out.append(path)
    return out + ["libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"]


class CuDNN:
    """The legacy softmax API of one libcudnn through ctypes, with a handle
    on torch's current stream."""

    def __init__(self, torch):
        import ctypes
        self.ct = ctypes
        last = None
        for path in cudnn_candidates(torch):
            try:
                self.lib = ctypes.CDLL(path)
                self.lib.cudnnSoftmaxForward  # noqa: B018 - the symbol must be there
                self.path = path
                break
            except (OSError, AttributeError) as e:
                last = e
        else:
            raise RuntimeError("no libcudnn with cudnnSoftmaxForward found (last: %s)" % last)
        L, vp, i = self.lib, ctypes.c_void_p, ctypes.c_int
        L.cudnnGetErrorString.restype = ctypes.c_char_p
        L.cudnnGetErrorString.argtypes = [i]
        L.cudnnGetVersion.restype = ctypes.c_size_t
        for name, args in (
                ("cudnnCreate", [vp]),
                ("cudnnSetStream", [vp, vp]),
                ("cudnnCreateTensorDescriptor", [vp]),
                ("cudnnSetTensor4dDescriptor", [vp, i, i, i, i, i, i]),
                ("cudnnSoftmaxForward", [vp, i, i, vp, vp, vp, vp, vp, vp]),
                ("cudnnSoftmaxBackward", [vp, i, i, vp, vp, vp, vp, vp, vp, vp, vp])):
            fn = getattr(L, name)
            fn.restype, fn.argtypes = i, args
        self.version = L.cudnnGetVersion()
        self.handle = vp()
        self.ck(L.cudnnCreate(ctypes.addressof(self.handle)), "cudnnCreate")
        # torch's current stream, on which the events of the timing are recorded.
        self.ck(L.cudnnSetStream(self.handle, torch.cuda.current_stream().cuda_stream), "cudnnSetStream")
        self.alpha, self.beta = ctypes.c_float(1.0), ctypes.c_float(0.0)  # float for f32, f16, bf16

    def ck(self, status, what):
        if status != 0:
            msg = self.lib.cudnnGetErrorString(status)
            raise RuntimeError("%s: %s (status %d)" % (what, msg.decode() if msg else "?", status))

    def descriptor(self, n, ch, h, dtype):
        """A packed NCHW descriptor (W = 1). Descriptors are not destroyed:
        a run makes a few a case."""
        d = self.ct.c_void_p()
        self.ck(self.lib.cudnnCreateTensorDescriptor(self.ct.addressof(d)), "cudnnCreateTensorDescriptor")
        self.ck(self.lib.cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA[dtype], n, ch, h, 1),
                "cudnnSetTensor4dDescriptor(%d, %d, %d, 1)" % (n, ch, h))
        return d


def load_cudnn(torch):
    """The CuDNN wrapper; None (with a note, once) when cuDNN cannot be used."""
    global _cudnn
    if _cudnn is None:
        try:
            _cudnn = CuDNN(torch)
            note("cudnn %d from %s" % (_cudnn.version, _cudnn.path))
        except Exception as e:  # noqa: BLE001 - missing or broken library
            note("cudnn not available (%s): skipping the cudnn peer" % e)
            _cudnn = False
    return _cudnn or None


def layout(c):
    """(outer, axis, inner) of the case."""
    ax = c.norm_axis
    outer = inner = 1
    for d in c.shape[:ax]:
        outer *= d
    for d in c.shape[ax + 1:]:
        inner *= d
    return outer, c.shape[ax], inner


def cudnn_op(torch, c, a, b, offset=0):
    """cudnnSoftmaxForward / Backward on the NCHW view (N outer, C the axis,
    H inner): INSTANCE mode for last-axis rows, CHANNEL mode otherwise."""
    cu = load_cudnn(torch)
    if cu is None:
        return None
    if c.numel() >= MAX_ELEMS:
        raise NotImplementedError("cudnn peer: %d elements (its descriptors hold fewer than 2^31)" % c.numel())
    outer, n_axis, inner = layout(c)
    mode = CUDNN_SOFTMAX_MODE_INSTANCE if inner == 1 else CUDNN_SOFTMAX_MODE_CHANNEL
    algo = CUDNN_SOFTMAX_LOG if c.log else CUDNN_SOFTMAX_ACCURATE
    desc = cu.descriptor(outer, n_axis, inner, c.dtype)
    out = at_offset(torch, c, a.device, offset)
    alpha, beta = cu.ct.addressof(cu.alpha), cu.ct.addressof(cu.beta)
    if not c.backward:
        f, args, what = cu.lib.cudnnSoftmaxForward, (cu.handle, algo, mode, alpha, desc, a.data_ptr(), beta, desc,
                                                     out.data_ptr()), "cudnnSoftmaxForward"
    else:
        f, args, what = cu.lib.cudnnSoftmaxBackward, (cu.handle, algo, mode, alpha, desc, a.data_ptr(), desc,
                                                      b.data_ptr(), beta, desc, out.data_ptr()), "cudnnSoftmaxBackward"

    def fn():
        cu.ck(f(*args), what)
    fn.keep = (desc, out)  # alive as long as the closure
    fn.result = lambda: out
    return fn


# ---------------------------------------------------------------- JAX

_jax = None

# JAX's rotating inputs cover this many bytes (at most JAX_MAX_COPIES copies).
JAX_ROTATE_BYTES = 256 << 20
JAX_MAX_COPIES = 1024
JAX_ROUNDS = 5


def load_jax():
    """(jax, jnp) with a GPU backend; None (with a note, once) otherwise."""
    global _jax
    if _jax is None:
        # Without this JAX takes 75% of the GPU's memory at its first call.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        try:
            import jax
            import jax.dlpack  # noqa: F401
            import jax.numpy as jnp
            if not any(d.platform == "gpu" for d in jax.devices()):
                raise RuntimeError("no GPU among jax.devices(): %s" % jax.devices())
            _jax = (jax, jnp)
            note("jax %s on %s" % (jax.__version__, jax.devices()[0].device_kind))
        except Exception as e:  # noqa: BLE001 - ImportError or a CPU-only install
            note("jax not available (%s): skipping the jax peer" % e)
            _jax = False
    return _jax or None


def jax_copies(c):
    """How many copies of its inputs a JAX case rotates through."""
    inputs = c.numel() * c.elem_size() * (2 if c.backward else 1)
    return max(1, min(JAX_MAX_COPIES, -(-JAX_ROTATE_BYTES // inputs)))


def to_jax(jax, torch, t):
    """A JAX array on the same device memory as torch tensor t (DLPack)."""
    try:
        return jax.dlpack.from_dlpack(t)
    except TypeError:  # a JAX that takes capsules only
        return jax.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))


def to_torch(jax, torch, arr):
    """A torch tensor on the memory of JAX array arr (DLPack), once it is ready."""
    arr = jax.block_until_ready(arr)
    try:
        return torch.from_dlpack(arr)
    except (TypeError, AttributeError, RuntimeError):  # a JAX without __dlpack__
        return torch.utils.dlpack.from_dlpack(jax.dlpack.to_dlpack(arr))


def jax_wall_time(jax, call, warmup, reps):
    """µs a call: JAX_ROUNDS rounds of reps calls dispatched back to back,
    each round ended by one block_until_ready; the median round."""
    out = call(0)
    for i in range(warmup):
        out = call(i)
    jax.block_until_ready(out)
    rounds = []
    for _ in range(JAX_ROUNDS):
        t0 = time.perf_counter()
        for i in range(reps):
            out = call(i)
        jax.block_until_ready(out)
        rounds.append((time.perf_counter() - t0) / reps)
    return statistics.median(rounds) * 1e6


def jax_op(torch, c, a, b, offset=0, warmup=25, reps=100):
    """jax.nn.softmax / log_softmax under jax.jit (backward: jax.vjp), on
    copies of torch's inputs handed over by DLPack. The closure carries its
    own timing (fn.time): JAX's stream is not torch's."""
    t = load_jax()
    if t is None:
        return None
    if offset:
        raise NotImplementedError("jax peer: aligned tensors only (XLA places its own buffers)")
    jax, jnp = t
    import functools
    fwd = functools.partial(jax.nn.log_softmax if c.log else jax.nn.softmax, axis=c.norm_axis)
    k = jax_copies(c)
    torch.cuda.synchronize()
    if not c.backward:
        x0 = to_jax(jax, torch, a)
        xs = [jnp.copy(x0) for _ in range(k)]
        g = jax.jit(fwd)

        def call(i):
            return g(xs[i % k])
        ref = lambda: reference(torch, c, a, None)  # noqa: E731
    else:
        y, dy = a, b
        # An x whose forward op gives y: log y for softmax (rows of y sum to
        # 1), y itself for log_softmax.
        xt = y if c.log else torch.log(y.float()).to(y.dtype)
        x0, dy0 = to_jax(jax, torch, xt), to_jax(jax, torch, dy)
        _, vjp0 = jax.vjp(fwd, x0)
        # Each copy's residuals under the first vjp function's structure, so
        # that the jitted backward compiles once.
        tree = jax.tree_util.tree_structure(vjp0)
        pairs = [(vjp0, jnp.copy(dy0))]
        try:
            for _ in range(1, k):
                _, vk = jax.vjp(fwd, jnp.copy(x0))
                pairs.append((jax.tree_util.tree_unflatten(tree, jax.tree_util.tree_leaves(vk)), jnp.copy(dy0)))
        except Exception as e:  # noqa: BLE001 - a JAX whose vjp functions do not regroup
            note("%s: jax: one set of residuals for every call (%s)" % (c, first_line(e)))
            pairs = [(vjp0, p[1]) for p in pairs]
            k = len(pairs)
        g = jax.jit(lambda vf, d: vf(d)[0])

        def call(i):
            return g(*pairs[i % k])
        ref = lambda: reference(torch, c, reference(torch, fwd_case(c), xt, None), dy)  # noqa: E731

    def fn():
        return call(0)
    fn.time = lambda: jax_wall_time(jax, call, warmup, reps)
    fn.result = lambda: to_torch(jax, torch, call(0))
    fn.reference = ref
    return fn


def fwd_case(c):
    """The forward case of a backward one."""
    return Case(c.shape, c.dtype, c.axis, c.op[:-len("_backward")])


def copy_op(torch, c, device):
    n = c.traffic() // 2
    src = torch.ones(n, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    return lambda: dst.copy_(src)


# ---------------------------------------------------------------- loss peers

LOSS_PEERS = ("torch", "torch.compile")


def loss_inputs(torch, c, device):
    """Logits uniform in ±4 in the case's dtype and one int64 class id per
    row (torch's default ignore_index -100 never occurs)."""
    dt = getattr(torch, c.dtype)
    x = (torch.rand(c.shape, device=device, dtype=torch.float32) * 8 - 4).to(dt)
    v = c.shape[-1]
    t = torch.randint(0, v, (c.numel() // v,), device=device, dtype=torch.int64)
    return x, t


def loss_fn(torch, c):
    """The case's forward as a function of (logits, targets)."""
    F = torch.nn.functional
    v = c.shape[-1]
    if c.op == "logsumexp":
        def f(x, t):
            return torch.logsumexp(x, dim=-1)
    else:
        def f(x, t):
            return F.cross_entropy(x.reshape(-1, v), t)
    return f


def loss_op(torch, c, x, t, compiled):
    """A closure timing the case: the forward, or for cross_entropy the
    forward and the gradient of the loss with respect to the logits
    (torch.autograd.grad, so nothing accumulates into .grad). compiled
    wraps the forward in torch.compile (AOTAutograd compiles its backward
    too). fn.result gives the output to check against eager torch."""
    f = loss_fn(torch, c)
    if compiled:
        torch._dynamo.reset()  # a fresh, static-shape compile per case (see compiled_op)
        last = None
        for mode in ("max-autotune-no-cudagraphs", None):
            try:
                g = torch.compile(f, mode=mode, dynamic=False) if mode else torch.compile(f, dynamic=False)
                if c.op == "cross_entropy":
                    xr = x.detach().requires_grad_(True)
                    torch.autograd.grad(g(xr, t), xr)
                else:
                    g(x, t)
                f = g
                break
            except Exception as e:  # noqa: BLE001 - any compile failure skips the mode
                last = e
        else:
            raise RuntimeError("torch.compile failed: %s" % last)
    if c.op != "cross_entropy":
        def fn():
            return f(x, t)
        fn.result = fn
        return fn
    xr = x.detach().requires_grad_(True)

    def fn():
        return torch.autograd.grad(f(xr, t), xr)[0]
    fn.result = fn
    return fn


def loss_reference(torch, c, x, t):
    """The case's result by eager torch in float32."""
    xf = x.detach().float()
    if c.op != "cross_entropy":
        return loss_fn(torch, c)(xf, t)
    xr = xf.requires_grad_(True)
    return torch.autograd.grad(loss_fn(torch, c)(xr, t), xr)[0]


def run_loss_case(torch, c, peers, timer, device, device_name, args, records):
    """Times the loss peers on one case (GPU or CPU), each checked once
    against eager float32 torch."""
    x, t = loss_inputs(torch, c, device)
    copy_us = timer(copy_op(torch, c, device))
    ref = loss_reference(torch, c, x, t)
    for name in peers:
        if name not in LOSS_PEERS:
            note("%s: %s: no %s peer (loss ops: %s)" % (c, name, c.op, ", ".join(LOSS_PEERS)))
            continue
        fn = None
        try:
            fn = loss_op(torch, c, x, t, name == "torch.compile")
            check_result(torch, c, name, fn.result(), ref)
            us = timer(fn)
        except Exception as e:  # noqa: BLE001 - report and go on, unless the context is gone
            note("%s: %s failed: %s" % (c, name, first_line(e)))
            if device != "cpu" and context_lost(torch):
                raise ContextLost("%s: %s: %s" % (c, name, first_line(e)))
            continue
        finally:
            del fn
        if not (us > 0 and math.isfinite(us)):
            continue
        records.append(peer_record(c, name, us, copy_us, device_name, args.offset))
        print("%-32s %-14s %12.2f us  (copy %10.2f us, ratio %.2f)" % (c, name, us, copy_us, copy_us / us),
              flush=True)


# ---------------------------------------------------------------- CPU peers

# As bench/cpu.go: cases smaller than CPU_ROTATE_BYTES rotate through
# enough buffer sets to cover it (at most CPU_MAX_SETS), twice a typical
# server slice's last-level cache, so every rep reads from memory.
CPU_ROTATE_BYTES = 64 << 20
CPU_MAX_SETS = 64


def cpu_sets(c):
    t = c.traffic()
    if t <= 0 or t >= CPU_ROTATE_BYTES:
        return 1
    return min(CPU_MAX_SETS, -(-CPU_ROTATE_BYTES // t))


def rotate(fns):
    """One closure that calls fns in turn, one per call."""
    state = [0]

    def call():
        i = state[0]
        state[0] = (i + 1) % len(fns)
        fns[i]()
    return call


def torch_out_call(torch, c, a, b, out):
    """The eager op on one buffer set, writing into out where ATen has an
    out= overload. Returns (closure, how) after one checked call."""
    dim = c.norm_axis
    aten = torch.ops.aten
    if not c.backward:
        plain = torch.log_softmax if c.log else torch.softmax
        overload = aten._log_softmax.out if c.log else aten._softmax.out
        tries = [(lambda: overload(a, dim, False, out=out), "out="),
                 (lambda: plain(a, dim=dim), "allocating")]
    else:
        y, dy = a, b
        overload = aten._log_softmax_backward_data.out if c.log else aten._softmax_backward_data.out
        plain = torch._log_softmax_backward_data if c.log else torch._softmax_backward_data
        tries = [(lambda: overload(dy, y, dim, y.dtype, grad_input=out), "out="),
                 (lambda: plain(dy, y, dim, y.dtype), "allocating")]
    last = None
    for fn, how in tries:
        try:
            fn()
            return fn, how
        except (TypeError, RuntimeError, AttributeError) as e:
            last = e
    raise RuntimeError("no usable torch op: %s" % last)


def cpu_torch_op(torch, c, sets):
    """The torch peer on the CPU over the rotating buffer sets."""
    fns, hows = [], set()
    for a, b, out in sets:
        fn, how = torch_out_call(torch, c, a, b, out)
        fns.append(fn)
        hows.add(how)
    if "allocating" in hows:
        note("%s: torch: no out= overload, timing the allocating call" % c)
    return rotate(fns)


def cpu_copy_op(torch, c, nsets):
    n = c.traffic() // 2
    fns = []
    for _ in range(nsets):
        src = torch.ones(n, dtype=torch.uint8)
        dst = torch.empty_like(src)
        dst.copy_(src)  # fault the pages in
        fns.append(lambda src=src, dst=dst: dst.copy_(src))
    return rotate(fns)


def run_cpu(torch, args, cases, records):
    torch.set_num_threads(args.threads)
    device_name = "cpu %s (torch %s, %d threads)" % (cpu_model(), torch.__version__, torch.get_num_threads())
    timer = CPUTimer(args.warmup, args.reps)
    for c in cases:
        if c.loss:
            # One buffer set: the loss cases worth timing are far larger
            # than the caches. torch.compile on the CPU needs a C++
            # compiler (Inductor); without one it is reported and skipped.
            try:
                run_loss_case(torch, c, LOSS_PEERS, timer, "cpu", device_name, args, records)
            except Exception as e:  # noqa: BLE001 - e.g. out of memory: skip the case
                note("%s: skipped: %s" % (c, first_line(e)))
            continue
        try:
            nsets = cpu_sets(c)
            sets = []
            for _ in range(nsets):
                a, b = make_inputs(torch, c, "cpu", args.offset)
                out = at_offset(torch, c, "cpu", args.offset) if args.offset else torch.empty_like(a)
                sets.append((a, b, out))
            copy_us = timer(cpu_copy_op(torch, c, nsets))
            us = timer(cpu_torch_op(torch, c, sets))
        except Exception as e:  # noqa: BLE001 - e.g. out of memory: skip the case
            note("%s: skipped: %s" % (c, str(e).splitlines()[0] if str(e) else type(e).__name__))
            continue
        del sets
        if not (us > 0 and math.isfinite(us)):
            continue
        records.append(peer_record(c, "torch", us, copy_us, device_name, args.offset))
        print("%-32s %-14s %12.2f us  (copy %10.2f us, ratio %.2f)" % (c, "torch", us, copy_us, copy_us / us),
              flush=True)


# ---------------------------------------------------------------- main

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or platform.machine()


class ContextLost(Exception):
    """The CUDA context failed (an illegal address, a kernel fault): every
    later call would fail too, so the run stops."""


def context_lost(torch):
    """Whether the CUDA context still runs work after a failure."""
    try:
        torch.cuda.synchronize()
        torch.ones(1, device="cuda").add_(1).item()
        return False
    except Exception:  # noqa: BLE001 - any error here means the context is gone
        return True


def first_line(e):
    return str(e).splitlines()[0] if str(e) else type(e).__name__


GPU_PEERS = ("torch", "torch.compile", "triton", "cudnn", "jax")


def run(args, cases, records, checkpoint=lambda: None):
    """Times every case, appending to records as each peer finishes (so
    that an interrupted run keeps what it timed) and calling checkpoint
    after each case."""
    try:
        import torch
    except ImportError:
        sys.exit("peers: PyTorch is not installed (pip install torch); nothing to time")

    if args.cpu:
        return run_cpu(torch, args, cases, records)
    if not torch.cuda.is_available():
        sys.exit("peers: no CUDA device visible to torch (use --cpu for the CPU peers)")
    device = args.device
    torch.cuda.set_device(torch.device(device))
    device_name = "%s %s (torch %s)" % (device, torch.cuda.get_device_name(), torch.__version__)
    timer = GPUTimer(torch, args.warmup, args.reps, not args.no_flush)
    table = {"torch": torch_op, "torch.compile": compiled_op, "triton": triton_op, "cudnn": cudnn_op,
             "jax": lambda torch, c, a, b, off: jax_op(torch, c, a, b, off, args.warmup, args.reps)}
    peers = [(p, table[p]) for p in args.peers.split(",") if p]

    for c in cases:
        if c.loss:
            if args.offset:
                note("%s: loss ops: aligned tensors only (--offset ignored)" % c)
            try:
                run_loss_case(torch, c, [p for p, _ in peers], timer, device, device_name, args, records)
            except ContextLost:
                raise
            except Exception as e:  # noqa: BLE001 - e.g. out of memory: skip the case
                note("%s: skipped: %s" % (c, first_line(e)))
                if context_lost(torch):
                    raise ContextLost("%s: %s" % (c, first_line(e)))
            torch.cuda.empty_cache()
            checkpoint()
            continue
        try:
            a, b = make_inputs(torch, c, device, args.offset)
            copy_us = timer(copy_op(torch, c, device))
        except Exception as e:  # noqa: BLE001 - e.g. out of memory: skip the case
            note("%s: skipped: %s" % (c, first_line(e)))
            if context_lost(torch):
                raise ContextLost("%s: %s" % (c, first_line(e)))
            continue
        for name, make in peers:
            fn = None
            try:
                fn = make(torch, c, a, b, args.offset)
                if fn is None:
                    continue
                if hasattr(fn, "result"):  # the new peers are checked once
                    fn()
                    ref = fn.reference() if hasattr(fn, "reference") else reference(torch, c, a, b)
                    check_result(torch, c, name, fn.result(), ref)
                    del ref
                us = fn.time() if hasattr(fn, "time") else timer(fn)
            except NotImplementedError as e:
                note("%s: %s: %s" % (c, name, e))
                continue
            except Exception as e:  # noqa: BLE001 - report and go on, unless the context is gone
                note("%s: %s failed: %s" % (c, name, first_line(e)))
                if context_lost(torch):
                    raise ContextLost("%s: %s: %s" % (c, name, first_line(e)))
                continue
            finally:
                del fn
            if not (us > 0 and math.isfinite(us)):
                continue
            records.append(peer_record(c, name, us, copy_us, device_name, args.offset))
            print("%-32s %-14s %12.2f us  (copy %10.2f us, ratio %.2f)" % (c, name, us, copy_us, copy_us / us),
                  flush=True)
        del a, b
        torch.cuda.empty_cache()
        checkpoint()


def peer_record(c, peer, us, copy_us, device_name, offset):
    """One output record; "offset" only for offset tensors."""
    rec = {"spec": c.spec(), "shape": c.shape, "dtype": SHORT[c.dtype], "axis": c.axis,
           "op": c.op, "peer": peer, "us": us, "copy_us": copy_us, "device": device_name}
    if offset:
        rec["offset"] = offset
    return rec


def write_json(path, records):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(records, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--shapes", help="comma-separated SPECs: DIMxDIM[x...]:dtype[:axis[:op]]")
    g.add_argument("--suite", help="a suite of `softmax bench` (asks --softmax-bin for its SPECs)")
    p.add_argument("--softmax-bin", default="", help="the softmax binary for --suite (default: go run ./cmd/softmax)")
    p.add_argument("--op", choices=OPS, help="op for every case (default: each SPEC's, softmax)")
    p.add_argument("--out", default="peers.json", help="output JSON file (default peers.json)")
    p.add_argument("--peers", default=",".join(GPU_PEERS),
                   help="GPU peers to time (default: all, %s; --cpu times torch)" % ", ".join(GPU_PEERS))
    p.add_argument("--device", default="cuda:0", help="CUDA device (default cuda:0)")
    p.add_argument("--cpu", action="store_true", help="time PyTorch on the CPU instead")
    p.add_argument("--threads", type=int, default=2,
                   help="torch threads for --cpu (default 2; match the GOMAXPROCS of softmax bench --device cpu)")
    p.add_argument("--reps", type=int, default=100, help="timed reps (default 100)")
    p.add_argument("--warmup", type=int, default=25, help="warm-up runs (default 25)")
    p.add_argument("--no-flush", action="store_true", help="do not flush the L2 cache between GPU reps")
    p.add_argument("--offset", type=int, default=0,
                   help="every tensor starts N elements past an aligned allocation, as softmax bench --offset N")
    args = p.parse_args(argv)
    if args.reps < 1 or args.warmup < 0 or args.threads < 1:
        p.error("--reps and --threads must be at least 1, --warmup at least 0")
    if args.offset < 0:
        p.error("--offset %d: want at least 0 elements" % args.offset)
    for name in args.peers.split(","):
        if name and name not in GPU_PEERS:
            p.error("unknown peer %r (want %s)" % (name, ", ".join(GPU_PEERS)))
    try:
        text = args.shapes if args.shapes is not None else suite_specs(args.suite, args.softmax_bin)
        cases = parse_specs(text)
    except (ValueError, subprocess.CalledProcessError, OSError) as e:
        p.error(str(e))
    if not cases:
        p.error("no cases")
    if args.op:
        for c in cases:
            c.op = args.op
            if c.loss and c.axis not in (-1, len(c.shape) - 1):
                p.error("%s: --op %s runs along the last (class) axis" % (c, args.op))
    cases = with_loss_forward(cases)
    # SIGTERM (timeout(1), a job's limit) ends the run as Ctrl-C does: the
    # cases timed so far are written, and the exit status says it stopped.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    records = []
    status = 0
    try:
        run(args, cases, records, checkpoint=lambda: write_json(args.out, records))
    except KeyboardInterrupt:
        note("interrupted: writing the %d records timed so far" % len(records))
        status = 1
    except Exception as e:  # noqa: BLE001 - keep what was timed, then say what stopped the run
        import traceback
        traceback.print_exc()
        note("stopped by %s: %s; writing the %d records timed so far" % (type(e).__name__, first_line(e), len(records)))
        status = 1
    write_json(args.out, records)
    note("wrote %d records to %s" % (len(records), args.out))
    return status


if __name__ == "__main__":
    sys.exit(main())
