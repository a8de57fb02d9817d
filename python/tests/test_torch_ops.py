"""jitgemm's PyTorch op on the GPU: every structure / fill / op against float64, empty
dimensions, in-place transposed views, gradients against float64 autograd (with the
formulas gradchecked in float64), torch.compile(fullgraph=True) of each Model, CUDA graph
capture, two streams, and the errors. Skips, each with its reason, without a CUDA device."""
import math
import os

import pytest
import torch

import jitgemm
from jitgemm import _torch_ops, models

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device: GPU tests skip")

U = 2.0**-24
STRUCTURES = ["general", "symmetric", "symmetric_upper", "lower", "upper", "lower_unit", "upper_unit"]


@pytest.fixture(autouse=True)
def _no_tf32():
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32 = previous


def dense(x, structure):
    """The dense matrix a structured operand stands for (its other triangle never read)."""
    eye = torch.eye(x.shape[0], x.shape[1], dtype=x.dtype, device=x.device)
    clean = torch.nan_to_num(x, nan=0.0)
    return {
        "general": lambda: x,
        "symmetric": lambda: torch.tril(clean) + torch.tril(clean, -1).T,
        "symmetric_upper": lambda: torch.triu(clean) + torch.triu(clean, 1).T,
        "lower": lambda: torch.tril(clean),
        "upper": lambda: torch.triu(clean),
        "lower_unit": lambda: torch.tril(clean, -1) + eye,
        "upper_unit": lambda: torch.triu(clean, 1) + eye,
    }[structure]()


def with_nan_where_unread(x, structure):
    """x with NaN in the part a structured operand never reads."""
    rows, cols = x.shape
    i = torch.arange(rows, device=x.device)[:, None]
    j = torch.arange(cols, device=x.device)[None, :]
    unread = {"general": i < -1, "symmetric": i < j, "symmetric_upper": i > j, "lower": i < j, "upper": i > j,
              "lower_unit": i <= j, "upper_unit": i >= j}[structure]
    return x.masked_fill(unread, float("nan"))


def fill_mask(c, fill):
    return {"full": c, "lower": torch.tril(c), "upper": torch.triu(c)}[fill]


def rel_error(x, ref):
    return (torch.linalg.norm((x.double() - ref).flatten()) / torch.linalg.norm(ref.flatten())).item()


def contract(precision, compute_fp32):
    """The mode's bound, from the same product by torch (cuBLAS) in fp32 or TF32."""
    if precision == "tf32":
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return 4 * compute_fp32()
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False
    return max(2 * compute_fp32(), 4 * U)


def signed(rows, cols, seed, scale=1.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(rows, cols, device="cuda", generator=g) * scale


def check_product(a, b, *, sa="general", sb="general", fill="full", precision="tf32x3", alpha=1.0):
    """jitgemm.matmul(a, b) against float64 under the mode's contract."""
    da, db = dense(a.double(), sa), dense(b.double(), sb)
    ref = fill_mask(alpha * (da @ db), fill)
    got = jitgemm.matmul(a, b, structure_a=sa, structure_b=sb, fill=fill, precision=precision, alpha=alpha)
    assert got.shape == ref.shape and got.is_contiguous()
    assert torch.isfinite(got).all(), "NaN or inf in the result (an unread triangle was read?)"
    fa, fb = da.float(), db.float()
    bound = contract(precision, lambda: rel_error(fill_mask(alpha * (fa @ fb), fill), ref))
    err = rel_error(got, ref)
    assert err <= bound, f"error {err:.3g} > bound {bound:.3g}"


def operand(rows, cols, structure, op, seed):
    """A rows x cols logical operand with NaN where unread; op "T": passed as a transposed view."""
    x = with_nan_where_unread(signed(rows, cols, seed), structure)
    return x.T.contiguous().T if op == "T" else x


# ---------------------------------------------------------------------------- products
@pytest.mark.parametrize("op", ["N", "T"])
@pytest.mark.parametrize("structure", STRUCTURES)
def test_structured_a_against_float64(structure, op):
    n = 136
    check_product(operand(n, n, structure, op, 1), signed(n, 72, 2), sa=structure)


@pytest.mark.parametrize("op", ["N", "T"])
@pytest.mark.parametrize("structure", STRUCTURES)
def test_structured_b_against_float64(structure, op):
    n = 136
    check_product(signed(88, n, 3), operand(n, n, structure, op, 4), sb=structure)


@pytest.mark.parametrize("precision", ["fp32", "tf32x3", "tf32"])
@pytest.mark.parametrize("fill", ["full", "lower", "upper"])
def test_fills_in_every_mode(fill, precision):
    check_product(signed(120, 200, 5), signed(200, 120, 6), fill=fill, precision=precision, alpha=-1.5)


@pytest.mark.parametrize("precision", ["fp32", "tf32x3", "tf32"])
@pytest.mark.parametrize("ops", ["NN", "NT", "TN", "TT"])
def test_general_ops_in_every_mode(ops, precision):
    a = operand(100, 260, "general", ops[0], 7)
    b = operand(260, 84, "general", ops[1], 8)
    check_product(a, b, precision=precision)


@pytest.mark.parametrize("precision", ["fp32", "tf32x3", "tf32"])
def test_reference_structures_in_every_mode(precision):
    n = 256
    check_product(operand(n, n, "lower", "N", 9), operand(n, n, "lower", "N", 10), sa="lower", sb="lower",
                  fill="lower", precision=precision)
    check_product(operand(n, n, "symmetric", "N", 11), operand(n, n, "symmetric", "N", 12), sa="symmetric",
                  sb="symmetric", precision=precision)


def test_trapezoidal_lower_operand():
    check_product(operand(160, 96, "lower", "N", 13), signed(96, 64, 14), sa="lower")


def test_out_with_beta_and_fill():
    a, b = signed(64, 96, 15), signed(96, 80, 16)
    out = signed(64, 80, 17)
    expected = torch.tril(2.0 * (a.double() @ b.double()) + 0.5 * out.double())
    result = jitgemm.matmul(a, b, fill="lower", alpha=2.0, beta=0.5, out=out)
    assert result is out
    assert rel_error(out, expected) <= 4 * U * 10
    # a column-major out is written through one copy, with the same result
    out_t = signed(80, 64, 17).T
    base = out_t.double().clone()
    jitgemm.matmul(a, b, beta=1.0, out=out_t)
    assert rel_error(out_t, a.double() @ b.double() + base) <= 4 * U * 10


@pytest.mark.parametrize("m,n,k", [(0, 5, 7), (5, 0, 7), (0, 0, 0), (5, 7, 0)])
def test_empty_dimensions(m, n, k):
    a, b = torch.rand(m, k, device="cuda"), torch.rand(k, n, device="cuda")
    c = jitgemm.matmul(a, b)
    assert c.shape == (m, n) and bool((c == 0).all())
    out = torch.full((m, n), 3.0, device="cuda")
    jitgemm.matmul(a, b, beta=2.0, out=out)   # K = 0: C = beta C; an empty C is not touched
    assert bool((out == 6.0).all())


def test_batched_operands_broadcast_like_torch_matmul():
    a = signed(3 * 40, 56, 18).view(3, 1, 40, 56).expand(3, 2, 40, 56)
    b = signed(2 * 56, 24, 19).view(2, 56, 24)
    got = jitgemm.matmul(a, b)
    ref = torch.matmul(a.double(), b.double())
    assert got.shape == ref.shape
    assert rel_error(got, ref) <= 4 * U * 10


def test_a_repeated_call_takes_the_prepared_path_and_stays_correct():
    a, b = signed(48, 80, 90), signed(80, 40, 91)
    first = jitgemm.matmul(a, b, precision="fp32")
    key = next(k for k in _torch_ops._seen_calls if k[0] == a.shape and k[2] == b.shape and k[11] == "fp32")
    assert key[1] == a.stride() and key[3] == b.stride()
    a2, b2 = signed(48, 80, 92), signed(80, 40, 93)
    second = jitgemm.matmul(a2, b2, precision="fp32")
    assert second.data_ptr() != first.data_ptr()
    assert rel_error(second, a2.double() @ b2.double()) <= 4 * U * 10
    # the same signature with autograd goes through the op, and gets gradients
    a3 = a2.clone().requires_grad_(True)
    jitgemm.matmul(a3, b2, precision="fp32").sum().backward()
    assert rel_error(a3.grad, torch.ones(48, 40, device="cuda", dtype=torch.float64) @ b2.double().T) <= 4 * U * 10


def test_the_prepared_path_serves_operands_at_other_alignments():
    # The signature (shapes, strides) is seen with 16-byte aligned operands; the same signature
    # 4 bytes further on gets another kernel inside the plan, and still the right product.
    big_a, big_b = signed(48, 96, 94), signed(80, 48, 95)
    aligned = jitgemm.matmul(big_a[:, :80], big_b[:, :40], precision="tf32x3")
    assert rel_error(aligned, big_a[:, :80].double() @ big_b[:, :40].double()) <= 4 * U * 10
    a, b = big_a[:, 1:81], big_b[:, 1:41]
    assert a.data_ptr() % 16 != 0 and a.stride() == big_a[:, :80].stride()
    for _ in range(2):
        got = jitgemm.matmul(a, b, precision="tf32x3")
        assert rel_error(got, a.double() @ b.double()) <= 4 * U * 10


# ---------------------------------------------------------------------------- no copies
def observe():
    seen = []
    _torch_ops.launch_observer = lambda problem, a, b, c: seen.append((problem.trans_a, problem.trans_b,
                                                                        problem.lda, problem.ldb, a, b, c))
    return seen


@pytest.fixture
def observed():
    seen = observe()
    yield seen
    _torch_ops.launch_observer = None


def test_transposed_views_are_read_in_place(observed):
    a_stored = signed(512, 128, 20)   # transA: A stored K x M
    b_stored = signed(96, 512, 21)    # B.T: stored N x K
    c = jitgemm.matmul(a_stored.T, b_stored.T)
    (ta, tb, lda, ldb, pa, pb, _), = observed
    assert (ta, tb, lda, ldb) == (1, 1, 128, 512)
    assert pa == a_stored.data_ptr() and pb == b_stored.data_ptr()
    assert rel_error(c, a_stored.double().T @ b_stored.double().T) <= 4 * U * 10


def test_padded_views_are_read_in_place_and_strided_ones_copied(observed):
    wide = signed(64, 200, 22)
    b = signed(128, 32, 23)
    jitgemm.matmul(wide[:, :128], b)
    jitgemm.matmul(wide[:, ::2][:, :64], b[:64])
    (ta, _, lda, _, pa, _, _), (_, _, lda2, _, pa2, _, _) = observed
    assert (ta, lda, pa) == (0, 200, wide.data_ptr())
    assert lda2 == 64 and pa2 != wide.data_ptr()


# ---------------------------------------------------------------------------- gradients
def backward_formulas(a, b, g, fill, alpha):
    """dA, dB of fill(alpha a @ b) for dense a, b (the formulas of jitgemm/backward.hpp)."""
    gm = fill_mask(g, fill)
    return alpha * gm @ b.T, alpha * a.T @ gm


class DenseProduct(torch.autograd.Function):
    """fill(alpha a @ b) with its backward written as the formulas (gradchecked below)."""

    @staticmethod
    def forward(ctx, a, b, fill, alpha):
        ctx.save_for_backward(a, b)
        ctx.fill, ctx.alpha = fill, alpha
        return fill_mask(alpha * a @ b, fill)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        da, db = backward_formulas(a, b, g, ctx.fill, ctx.alpha)
        return da, db, None, None


@pytest.mark.parametrize("fill", ["full", "lower", "upper"])
def test_backward_formulas_pass_gradcheck_in_float64(fill):
    a = torch.randn(7, 5, dtype=torch.float64, device="cuda", requires_grad=True)
    b = torch.randn(5, 7, dtype=torch.float64, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, y: DenseProduct.apply(x, y, fill, -0.75), (a, b))


GRADIENT_CASES = [
    # id, a (rows, cols, structure, op), b, fill
    ("general", (96, 160, "general", "N"), (160, 72, "general", "N"), "full"),
    ("transA", (96, 160, "general", "T"), (160, 72, "general", "N"), "full"),
    ("transB", (96, 160, "general", "N"), (160, 72, "general", "T"), "full"),
    ("symmetric", (128, 128, "symmetric", "N"), (128, 128, "symmetric", "N"), "full"),
    ("lowertri", (128, 128, "lower", "N"), (128, 128, "lower", "N"), "lower"),
    ("upper_fill_T", (128, 128, "upper", "T"), (128, 128, "general", "N"), "upper"),
]


@pytest.mark.parametrize("precision", ["tf32x3", "fp32", "tf32"])
@pytest.mark.parametrize("case", GRADIENT_CASES, ids=[c[0] for c in GRADIENT_CASES])
def test_gradients_against_float64(case, precision):
    _, (ra, ca, sa, opa), (rb, cb, sb, opb), fill = case
    # The operands hold what their structure says (zeros, not NaN: autograd of the dense
    # expression reads every element).
    a = dense(operand(ra, ca, "general", opa, 30), sa).detach()
    b = dense(operand(rb, cb, "general", opb, 31), sb).detach()
    if opa == "T":
        a = a.T.contiguous().T
    if opb == "T":
        b = b.T.contiguous().T
    a.requires_grad_(True), b.requires_grad_(True)
    g = signed(ra, cb, 32)
    alpha = 1.25
    c = jitgemm.matmul(a, b, structure_a=sa, structure_b=sb, fill=fill, precision=precision, alpha=alpha)
    c.backward(g)
    a64, b64 = a.detach().double(), b.detach().double()
    da64, db64 = backward_formulas(a64, b64, g.double(), fill, alpha)
    for name, got, ref in (("dA", a.grad, da64), ("dB", b.grad, db64)):
        assert got.shape == ref.shape, name
        bound = contract(precision, lambda: rel_error(backward_formulas(a.detach(), b.detach(), g, fill, alpha)
                                                      [0 if name == "dA" else 1], ref))
        err = rel_error(got, ref)
        assert err <= bound, f"{name}: error {err:.3g} > bound {bound:.3g}"


def test_batched_gradients_sum_over_broadcast_dimensions():
    a = signed(2 * 48, 64, 33).view(2, 48, 64).requires_grad_(True)
    b = signed(64, 40, 34).requires_grad_(True)
    g = signed(2 * 48, 40, 35).view(2, 48, 40)
    jitgemm.matmul(a, b).backward(g)
    a64, b64, g64 = a.detach().double(), b.detach().double(), g.double()
    assert rel_error(a.grad, g64 @ b64.T) <= 4 * U * 10
    assert rel_error(b.grad, (a64.transpose(1, 2) @ g64).sum(0)) <= 4 * U * 10


# ---------------------------------------------------------------------------- Models
@pytest.mark.parametrize("model_id", list(models.MODELS))
def test_torch_compile_fullgraph_traces_each_model(model_id):
    spec = models.MODELS[model_id]
    torch.manual_seed(0)
    inputs = spec.get_inputs(scale=1 / 16)
    new = spec.make_new("tf32x3")
    compiled = torch.compile(new, fullgraph=True)
    eager = new(*inputs)
    got = compiled(*inputs)
    torch.testing.assert_close(got, eager, rtol=0, atol=0)
    # and backward through the compiled graph
    xs = [x.clone().requires_grad_(True) for x in inputs]
    ys = [x.clone().requires_grad_(True) for x in inputs]
    g = torch.randn_like(eager)
    compiled(*xs).backward(g)
    new(*ys).backward(g)
    for x, y in zip(xs, ys):
        torch.testing.assert_close(x.grad, y.grad, rtol=0, atol=0)


def test_torch_compile_reduce_overhead_replays_a_cuda_graph():
    # mode="reduce-overhead": inductor records the compiled Model into a CUDA graph after its
    # warm-up runs and replays it; each replay must compute the product of the new inputs.
    spec = models.MODELS["lowertri"]
    new = spec.make_new("tf32x3")
    compiled = torch.compile(new, mode="reduce-overhead", fullgraph=True)
    for seed in range(4):
        torch.manual_seed(seed)
        inputs = spec.get_inputs(scale=1 / 16)
        got = compiled(*inputs).clone()
        torch.testing.assert_close(got, new(*inputs), rtol=0, atol=0)


# ---------------------------------------------------------------------------- streams, graphs
@pytest.mark.parametrize("name,shape,kwargs", [
    ("lowertri", (256, 256, 256), dict(structure_a="lower", structure_b="lower", fill="lower")),
    ("largeK", (128, 128, 65536), {}),
])
def test_cuda_graph_capture_replays_with_new_data(name, shape, kwargs):
    m, n, k = shape
    a = torch.tril(signed(m, k, 40)) if kwargs else signed(m, k, 40)
    b = torch.tril(signed(k, n, 41)) if kwargs else signed(k, n, 41)
    jitgemm.matmul(a, b, **kwargs)  # warm-up: the kernel compiled and the launch plan made outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c = jitgemm.matmul(a, b, **kwargs)
    for seed in (42, 43):
        a.copy_(torch.tril(signed(m, k, seed)) if kwargs else signed(m, k, seed))
        graph.replay()
        torch.cuda.synchronize()
        ref = a.double() @ b.double()
        if kwargs:
            ref = torch.tril(ref)
        assert rel_error(c, ref) <= max(2 * rel_error((a @ b) if not kwargs else torch.tril(a @ b), ref), 4 * U)


def test_capturing_a_shape_that_never_ran_says_to_warm_up():
    a, b = signed(72, 48, 44), signed(48, 56, 45)
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(NotImplementedError, match="warm-up"):
        with torch.cuda.graph(graph):
            jitgemm.matmul(a, b, precision="tf32")


def test_two_streams_at_once():
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    pairs = [(signed(512, 768, 50 + i), signed(768, 384, 60 + i)) for i in range(2)]
    torch.cuda.synchronize()
    outs = []
    for stream, (a, b) in zip((s1, s2), pairs):
        with torch.cuda.stream(stream):
            outs.append([jitgemm.matmul(a, b) for _ in range(4)])
    torch.cuda.synchronize()
    for results, (a, b) in zip(outs, pairs):
        ref = a.double() @ b.double()
        for c in results:
            assert rel_error(c, ref) <= max(2 * rel_error(a @ b, ref), 4 * U)


# ---------------------------------------------------------------------------- API, errors
def test_explain_serve_counters_and_tune():
    a, b = signed(64, 64, 70), signed(64, 64, 71)
    before = jitgemm.serve_counters()
    jitgemm.matmul(a, b, precision="fp32")
    after = jitgemm.serve_counters()
    assert sum(after[:3]) == sum(before[:3]) + 1
    e = jitgemm.explain(a, b, precision="fp32")
    assert e.rule in ("exact", "nearest", "default") and e.kernel and "decision:" in str(e)
    if os.environ.get("JITGEMM_PYTHON_TUNE") != "1":
        pytest.skip("jitgemm.tune compiles every candidate: set JITGEMM_PYTHON_TUNE=1 (bench/device-run.sh does)")
    ms = jitgemm.tune(a, b, precision="fp32", jobs=16, write_database=False)
    assert ms > 0
    tuned = jitgemm.explain(a, b, precision="fp32")
    assert tuned.rule == "exact" and not tuned.stale, str(tuned)
    # the prepared call of this signature (made before the tune) is made again: the record serves it
    before = jitgemm.serve_counters()
    for _ in range(2):
        jitgemm.matmul(a, b, precision="fp32")
    after = jitgemm.serve_counters()
    assert after.exact == before.exact + 2, (before, after)


def test_bad_arguments_are_value_errors_naming_them():
    a, b = signed(8, 8, 80), signed(8, 8, 81)
    with pytest.raises(ValueError, match="a is on cpu"):
        jitgemm.matmul(a.cpu(), b)
    with pytest.raises(ValueError, match="b has dtype torch.float64"):
        jitgemm.matmul(a, b.double())
    with pytest.raises(ValueError, match=r"a's columns \(8\) must equal b's rows \(4\)"):
        jitgemm.matmul(a, b[:4])
    with pytest.raises(ValueError, match="beta=0.5 needs out="):
        jitgemm.matmul(a, b, beta=0.5)
    with pytest.raises(ValueError, match="precision='fp64'"):
        jitgemm.matmul(a, b, precision="fp64")
    with pytest.raises(ValueError, match="overlaps"):   # the library's own message
        jitgemm.matmul(a, b, out=a)
    with pytest.raises(ValueError, match="does not support automatic differentiation"):
        jitgemm.matmul(a.requires_grad_(True), b, out=torch.empty(8, 8, device="cuda"))
    with pytest.raises(ValueError, match="needs a square operand"):
        jitgemm.matmul(signed(8, 6, 82), signed(6, 8, 83), structure_a="symmetric")


def test_unsupported_combinations_are_not_implemented_errors():
    # A leading dimension of 2^30 floats or more is not supported (problem.hpp): a view of
    # a 4 GiB buffer with that row stride.
    storage = torch.empty(2**30 + 64, device="cuda")
    a = storage.as_strided((2, 64), (2**30, 1))
    with pytest.raises(NotImplementedError, match="leading dimensions must be below 2"):
        jitgemm.matmul(a, signed(64, 8, 84))
