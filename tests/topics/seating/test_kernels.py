"""The GPU kernel figures' loader (datafiles/kernels.py, re-exported by models/kernels.py): a broken file is named."""

import shutil

import pytest

from interconnect.datafiles.tables import packaged_data_file
from interconnect.hardware.stragglers import slowest_rank_lag
from interconnect.topics.seating.kernels import gemm_shape_factor, kernel_figures, kernel_sources
from interconnect.topics.seating.kernels_data import KernelDataError, TileGrid, load_kernel_data


def _copy(tmp_path):
    target = tmp_path / "gpu-kernels.toml"
    shutil.copy(packaged_data_file("published/gpu-kernels.toml"), target)
    return target


def test_a_copy_reads_the_same_figures_as_the_packaged_file(tmp_path):
    by_gpu, _ = load_kernel_data(_copy(tmp_path))
    assert by_gpu["h200"] == kernel_figures("h200")
    # Bekman's MSMF table: H200 BF16 sustained 698.6 TFLOP/s, all 8 GPUs busy (the file's hopper figure;
    # ml-engineering branch fast-mamf, commit 082816f, compute/accelerator/benchmarks/README.md)
    assert by_gpu["h200"].gemm_flops == pytest.approx(698.6e12)


@pytest.mark.parametrize(("gpu", "tflops"), [
    # ml-engineering fast-mamf branch, commit 082816f, benchmarks/README.md, "All 8 GPUs x 5 rounds": H200 MSMF
    ("h100-sxm", 698.6), ("h200", 698.6),
    # same row for B200: MSMF 1426.4; GB200 and B300 take B200's figure by the family rule
    ("b200", 1426.4), ("gb200", 1426.4), ("b300", 1426.4),
    # master commit 744d01e, compute/accelerator/README.md, BF16 MAMF table: MI300X 668.4 (replaced 781.9)
    ("mi300x", 668.4), ("mi325x", 668.4),
    # same table, A100 SXM 271.2, times H200's MSMF/MAMF with all 8 busy, 698.6 / 823.9 (fast-mamf branch)
    ("a100-sxm", 230.0),
])
def test_each_family_rate_is_the_cited_figure(gpu, tflops):
    assert kernel_figures(gpu).gemm_flops == pytest.approx(tflops * 1e12)
    if gpu == "a100-sxm":
        assert tflops == pytest.approx(271.2 * 698.6 / 823.9, abs=0.05)


def test_sources_are_pinned_to_the_commit_that_holds_them():
    sources = kernel_sources()
    assert "082816f9be8aeb6b65b074c33cb354a7ca1e7087" in sources["mle-msmf"]["url"]  # unmerged branch fast-mamf
    assert "744d01e18b79512572f64a6bbd8b5f4a725203a7" in sources["mle-mamf"]["url"]  # master
    assert "gb200" in kernel_figures("gb200").gemm_basis.lower()  # says GB200 takes B200's figure


@pytest.mark.parametrize(("old", "new", "message"), [
    ('gemm_tflops = 230.0', 'gemm_tflops = -230.0', r"family 'ampere': 'gemm_tflops' must be a positive number"),
    ('attention_share = 0.45', 'attention_share = 1.45', r"family 'cdna3': 'attention_share' must be a fraction"),
    ('attention_sources = ["fa2"]', 'attention_sources = ["fa9"]', r"family 'ampere': 'attention_sources' must list"),
    ('flash2_share = 0.35', 'flash2_share = 0.0', r"family 'hopper': 'flash2_share' must be a fraction"),
    ('flash2_sources = ["fa3"]', 'flash2_sources = []', r"family 'hopper': 'flash2_sources' must list"),
    ('attention_sustained = 0.815', 'attention_sustained = 1.2',
     r"family 'blackwell': 'attention_sustained' must be a fraction"),
    ('sms = 108', 'sms = "108"', r"family 'ampere': 'sms' has the wrong type"),
    ('gpus = ["mi300x", "mi325x"]', 'gpus = ["mi300x", "h200"]', r"family 'cdna3': GPU 'h200' is already in family"),
    ('[[family]]\nid = "ampere"', '[[family]]\ncolour = "green"\nid = "ampere"', r"family 'ampere': unknown key\(s\)"),
    ('[[family]]\nid = "ampere"', '[[gpu]]\n[[family]]\nid = "ampere"', r"unknown table\(s\) gpu"),
    ('id = "hopper"', 'id = "ampere"', r"family 'ampere': duplicate id"),
    ('sms = 108', 'sms = -1', r"family 'ampere': 'sms' must be 0 \(not checked\) or a positive count"),
    ('id = "mle-mamf-v2"', 'id = "mle-mamf"', r"source 'mle-mamf': duplicate id"),
    ('url = "https://github.com/stas00/', 'url = "ftp://github.com/stas00/',
     r"source 'mle-mamf': 'url' must be an http\(s\) address"),
    ('low_power_w = 400.0', 'low_power_w = 800.0', r"family 'hopper': 'rated_power_w', 'low_power_w' and"),
    ('low_power_share = 0.8443\n', '', r"family 'hopper': 'rated_power_w', 'low_power_w' and"),
    ('power_sources = ["nvidia-h100-parts", "torchtitan-peak-flops"]', 'power_sources = []',
     r"family 'hopper': 'power_sources' must list"),
    ('hbm_share = 0.8955', 'hbm_share = 1.3', r"family 'hopper': 'hbm_share' must be a fraction"),
    ('flash2_fwd_bwd_tflops = [163.0, ', 'flash2_fwd_bwd_tflops = [', r"family 'hopper': the 'flash2' attention table"),
    ('flash_bwd_tflops = [316.0, 424.0, 501.0, 542.0, 559.0, 561.0]\n', '',
     r"family 'hopper': give 'flash_fwd_bwd_tflops' or both"),
    ('attention_seq = [512, 1024, 2048, 4096, 8192, 16384]\nflash_fwd_bwd',
     'attention_seq = [1024, 512, 2048, 4096, 8192, 16384]\nflash_fwd_bwd',
     r"family 'ampere': 'attention_seq' must list increasing"),
    ('hbm_sources = ["flashmla"]', 'hbm_sources = []', r"family 'hopper': 'hbm_sources' must list"),
    ('gemm_k_overhead = 132.0', 'gemm_k_overhead = 30000.0', r"family 'hopper': 'gemm_k_overhead' and"),
    ('gemm_reference_k = 20480.0\n', '', r"family 'hopper': 'gemm_k_overhead' and 'gemm_reference_k' go together"),
    ('gemm_fit_tflops = 843.0\n', '', r"family 'hopper': 'gemm_call_us' and 'gemm_fit_tflops' go together"),
    ('gemm_k_sources = ["xla-matmul-table", ', 'gemm_k_sources = ["xla-table", ',
     r"family 'hopper': 'gemm_k_sources' must list"),
    ('cudnn_dropout_ratio = 1.034', 'cudnn_dropout_ratio = 0.97',
     r"family 'hopper': 'cudnn_dropout_ratio' must be between 1 and 10"),
    ('cudnn_dropout_sources = ["te-dropout-3312"]', 'cudnn_dropout_sources = []',
     r"family 'hopper': 'cudnn_dropout_sources' must list"),
])
def test_the_loader_names_the_table_and_key_of_a_broken_file(tmp_path, old, new, message):
    path = _copy(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(KernelDataError, match=rf"^gpu-kernels\.toml: .*{message}"):
        load_kernel_data(path)


def test_flash_attention_2_runs_at_its_own_share_on_hopper_only():
    # FlashAttention-3 paper (arXiv 2407.08608), abstract: FlashAttention-2 reaches 35 % of an H100's peak
    # (both single-GPU figures, taken at the sustained/burst ratio: see the next test)
    hopper, ampere = kernel_figures("h100-sxm"), kernel_figures("a100-sxm")
    assert hopper.attention_share_for("flash2") == pytest.approx(0.35 * hopper.attention_sustained)
    assert hopper.attention_share_for("flash") == pytest.approx(hopper.attention_share * hopper.attention_sustained)
    assert hopper.attention_share != 0.35
    # on Ampere FlashAttention-2 is the newest kernel: one figure for both names
    assert ampere.attention_share_for("flash2") == ampere.attention_share_for("flash")


@pytest.mark.parametrize(("gpu", "sustained", "burst"), [
    # ml-engineering fast-mamf branch, commit 082816f, benchmarks/README.md, "All 8 GPUs x 5 rounds": H200 BF16
    # MSMF 698.6 and MAMF 823.9 (Hopper; Ampere's GEMM figure takes the same ratio); B200 MSMF 1426.4, MAMF 1751.2
    ("h100-sxm", 698.6, 823.9), ("a100-sxm", 698.6, 823.9), ("b200", 1426.4, 1751.2), ("gb200", 1426.4, 1751.2),
])
def test_attention_takes_the_families_sustained_over_burst_ratio(gpu, sustained, burst):
    k = kernel_figures(gpu)
    assert k.attention_sustained == pytest.approx(sustained / burst, abs=5e-4)
    assert k.attention_share_for("flash") == pytest.approx(k.attention_share * sustained / burst, abs=5e-4)


def test_attention_without_a_sustained_figure_keeps_its_share():
    # CDNA 3: no sustained figure is published (its GEMM rate is the best measured one), so none is applied
    k = kernel_figures("mi300x")
    assert k.attention_sustained == 1.0 and k.attention_share_for("flash") == k.attention_share


def test_a_power_limit_scales_the_tensor_core_rates_on_the_line_between_the_makers_two_parts():
    # NVIDIA's H100 specifications (torchtitan's get_peak_flops at 9dec370 takes the same figures): H100 NVL 1,671 and
    # H100 SXM 1,979 TFLOPS BF16 with sparsity, at 400 W and 700 W: the lower part keeps 1671 / 1979 of the rate
    k = kernel_figures("h200")
    assert k.power_scale(400) == pytest.approx(1671 / 1979, abs=1e-4)
    assert k.power_scale(700) == k.power_scale(0) == k.power_scale(1000) == 1.0
    # straight line between the two: 500 W (Meta's Grand Teton H100s, torchtitan docs/performance.md at eaea6f6)
    assert k.power_scale(500) == pytest.approx(1671 / 1979 + (1 - 1671 / 1979) * (500 - 400) / (700 - 400), abs=1e-4)
    # and inside the bracket torchtitan's page gives that part's peak: between NVL's 835 and SXM's 989 TFLOP/s
    assert 835 / 989 < k.power_scale(500) < 1.0
    # below the lower part, in proportion to the watts; a family without the two parts is not scaled
    assert k.power_scale(200) == pytest.approx(k.power_scale(400) / 2)
    assert kernel_figures("a100-sxm").power_scale(300) == 1.0


def test_a_run_held_to_a_lower_power_limit_runs_its_gemms_and_attention_slower_by_that_share():
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model.compute import _rates
    from interconnect.topics.seating.model.layout import Workload

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    share = kernel_figures("h100-sxm").power_scale(500)
    for dtype in (2, 1):
        rated = _rates(cluster, Workload(dtype_bytes=dtype))
        held = _rates(cluster, Workload(dtype_bytes=dtype, power_limit_w=500))
        assert held[0] == pytest.approx(rated[0] * share) and held[1] == pytest.approx(rated[1] * share)
        assert "at a 500 W limit" in held[3] and "at a " not in rated[3]


def test_memory_bound_passes_run_at_the_share_the_fastest_published_kernel_reaches():
    # deepseek-ai/FlashMLA README.md at 414a2f3: up to 3,000 GB/s memory-bound on an H800 SXM5 (HBM3 at 3.35 TB/s,
    # the H100 SXM5's): Hopper's memory-bound passes run at that share of the spec bandwidth
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model.compute import _hbm_bytes_per_s

    assert kernel_figures("h100-sxm").hbm_share == pytest.approx(3000 / 3350, abs=1e-4)
    h100, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    assert _hbm_bytes_per_s(h100) == pytest.approx(3000e9, rel=1e-4)
    # no such figure for the other families: their spec bandwidth is used as it is
    a100, _ = resolve_cluster("a100-sxm", gpus_per_node=8, nodes=1)
    assert kernel_figures("a100-sxm").hbm_share == 1.0
    assert _hbm_bytes_per_s(a100) == pytest.approx(2.039e12)


def test_attention_runs_at_the_authors_published_rate_for_its_sequence_length():
    # FlashAttention-2 forward + backward, causal, head dim 128, on one H100 SXM5 (Dao-AILab/flash-attention
    # assets/flash2_h100_fwd_bwd_benchmark.png at 4f285b3): 308 TFLOP/s at 8k tokens, 328 at 16k, 163 at 512
    k = kernel_figures("h100-sxm")
    per_gpu = lambda kernel, n: float(k.attention_flops_for(kernel, n)) / k.attention_sustained / 1e12  # noqa: E731
    assert per_gpu("flash2", 8192) == pytest.approx(308)
    assert per_gpu("flash2", 512) == pytest.approx(163) and per_gpu("flash2", 256) == pytest.approx(163)  # held
    assert per_gpu("flash2", 262144) == pytest.approx(328)
    assert per_gpu("flash2", 8192 * 2 ** 0.5) == pytest.approx((308 + 328) / 2)  # halfway in log2 of the length
    # FlashAttention-3: causal forward 602 (README figure at 7ef2484) and backward 559 (the paper's figure) at 8k;
    # the backward does 2.5 times the forward's FLOPs, so 3.5 FLOPs take 1/602 + 2.5/559
    assert per_gpu("flash", 8192) == pytest.approx(3.5 / (1 / 602 + 2.5 / 559))
    # below the abstract's headline (75 % of the peak, forward alone, head dim 256) and the 0.6 share used before
    assert per_gpu("flash", 8192) / 989.4 == pytest.approx(0.577, abs=1e-3)
    # Ampere: FlashAttention-2 is the newest kernel, one table for both names (A100 figure, 182 at 8k)
    a100 = kernel_figures("a100-sxm")
    assert float(a100.attention_flops_for("flash2", 8192)) == float(a100.attention_flops_for("flash", 8192))
    assert float(a100.attention_flops_for("flash", 8192)) / a100.attention_sustained == pytest.approx(182e12)
    # no table: the share is used (CDNA 3), and unfused attention is a GEMM
    assert kernel_figures("mi300x").attention_flops_for("flash", 8192) is None
    assert k.attention_flops_for("unfused", 8192) is None


def test_the_step_charges_attention_at_the_rate_of_the_tokens_per_context_parallel_rank():
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model.compute import _rates
    from interconnect.topics.seating.model.layout import Workload

    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    k = kernel_figures("h100-sxm")
    _, at_8k, _, _ = _rates(cluster, Workload(attention="flash2"), seq=8192)
    _, at_1k, _, _ = _rates(cluster, Workload(attention="flash2"), seq=8192 / 8)  # CP 8
    pace = 1 + float(slowest_rank_lag(8, k.speed_spread))  # the slowest of the node's 8 GPUs sets it
    assert float(at_8k) == pytest.approx(308e12 * k.attention_sustained / pace)
    assert float(at_1k) == pytest.approx(221e12 * k.attention_sustained / pace)
    _, no_length, _, _ = _rates(cluster, Workload(attention="flash2"))
    assert no_length == pytest.approx(989.4e12 * k.attention_share_for("flash2") / pace)


def test_a_job_runs_its_tensor_cores_at_the_pace_of_its_slowest_gpu():
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model.compute import _rates
    from interconnect.topics.seating.model.layout import Workload

    # gpu-kernels.toml: the MSMF range over eight busy GPUs of one node (ml-engineering fast-mamf 082816f,
    # benchmarks/README.md, "All 8 GPUs x 5 rounds"): H200 4.5 %, B200 10.4 %
    assert kernel_figures("h100-sxm").speed_spread == 0.045 and kernel_figures("gb200").speed_spread == 0.104
    assert kernel_figures("mi300x").speed_spread == 0.0  # none published: no lag
    one, _ = resolve_cluster("b200", gpus_per_node=1, nodes=1)
    many, _ = resolve_cluster("b200", gpus_per_node=8, nodes=64)
    gemm_one, attn_one, _, basis_one = _rates(one, Workload(), seq=4096)
    gemm_many, attn_many, _, basis_many = _rates(many, Workload(), seq=4096)
    assert gemm_one == pytest.approx(kernel_figures("b200").gemm_flops) and "slowest" not in basis_one
    # 512 GPUs: (w / 2)(N - 1)/(N + 1) = 0.052 x 511 / 513 behind, GEMMs and attention alike
    lag = 0.104 / 2 * 511 / 513
    assert gemm_many == pytest.approx(gemm_one / (1 + lag)) and float(attn_many) == pytest.approx(attn_one / (1 + lag))
    assert "the slowest of 512 GPUs sets the pace, 5.2% behind" in basis_many
    amd, _ = resolve_cluster("mi300x", gpus_per_node=8, nodes=8)
    amd_one, _ = resolve_cluster("mi300x", gpus_per_node=1, nodes=1)
    assert _rates(amd, Workload())[0] == _rates(amd_one, Workload())[0]


def test_cudnn_fused_attention_runs_at_its_own_published_rate_where_there_is_one():
    # cuDNN on an H100 SXM5, head dim 128, 8k tokens: causal forward 529 TFLOP/s (flash-attention's README figure at
    # 7ef2484) and backward 518 (the FlashAttention-3 paper's figure): 3.5 FLOPs in 1/529 + 2.5/518
    k = kernel_figures("h100-sxm")
    assert float(k.attention_flops_for("cudnn", 8192)) / k.attention_sustained == pytest.approx(
        3.5e12 / (1 / 529 + 2.5 / 518))
    assert float(k.attention_flops_for("cudnn", 8192)) < float(k.attention_flops_for("flash", 8192))
    # a family with no cuDNN figure runs it at its newest fused kernel's rate (Ampere's FlashAttention-2), or share
    a100 = kernel_figures("a100-sxm")
    assert float(a100.attention_flops_for("cudnn", 4096)) == float(a100.attention_flops_for("flash", 4096))
    mi300x = kernel_figures("mi300x")
    assert mi300x.attention_flops_for("cudnn", 4096) is None
    assert mi300x.attention_share_for("cudnn") == mi300x.attention_share_for("flash")


def test_dropout_inside_cudnn_attention_lengthens_the_call_by_the_measured_ratio_on_hopper():
    from interconnect.hardware.cluster import resolve_cluster
    from interconnect.topics.seating.model.compute import _rates
    from interconnect.topics.seating.model.layout import Workload

    # NVIDIA/TransformerEngine issue 3312, H200 (sm90), TE 2.15.0, sbhd, BF16, 16 heads of 128, 4 x 1,024 tokens:
    # one DotProductAttention forward + backward on the fused (cuDNN) backend takes 0.594 ms without dropout and
    # 0.614 ms at p = 0.1; H100 takes the figure by the family rule (rule R58)
    measured = 0.614 / 0.594
    for gpu in ("h100-sxm", "h200"):
        assert kernel_figures(gpu).cudnn_dropout_ratio == pytest.approx(measured, abs=5e-4)
        assert "te-dropout-3312" in kernel_figures(gpu).sources
    cluster, _ = resolve_cluster("h100-sxm", gpus_per_node=8, nodes=1)
    for seq in (1024, 2048, 8192):
        _, plain, _, _ = _rates(cluster, Workload(attention="cudnn"), seq=seq)
        _, dropped, _, _ = _rates(cluster, Workload(attention="cudnn", dropout=True), seq=seq)
        # the same FLOPs at 1/1.034 of the rate: the call's time (forward and backward alike) x 1.034
        assert float(plain) / float(dropped) == pytest.approx(1.034)
    # the GEMMs do not change, nor a kernel the figure was not measured on, nor a family without a figure
    gemm_plain, _, _, _ = _rates(cluster, Workload(attention="cudnn"), seq=2048)
    gemm_dropped, _, _, _ = _rates(cluster, Workload(attention="cudnn", dropout=True), seq=2048)
    assert gemm_plain == gemm_dropped
    for kernel in ("flash", "flash2"):
        assert _rates(cluster, Workload(attention=kernel, dropout=True), seq=2048)[1] == pytest.approx(
            _rates(cluster, Workload(attention=kernel), seq=2048)[1])
    b200, _ = resolve_cluster("b200", gpus_per_node=8, nodes=1)
    assert kernel_figures("b200").cudnn_dropout_ratio == 1.0
    assert _rates(b200, Workload(attention="cudnn", dropout=True), seq=2048)[1] == pytest.approx(
        _rates(b200, Workload(attention="cudnn"), seq=2048)[1])


# FlashAttention-4 (Zadouri et al., arXiv 2603.05451v1), figures "Forward TFLOPS on B200 (causal=True, head dim 128)"
# and "Backward TFLOPS on B200 (causal=True, head dim 128)", bar labels in TFLOP/s at 1k, 2k, 4k, 8k, 16k, 32k tokens
FA4_B200 = {
    "flash": ([744, 1053, 1279, 1426, 1526, 1576], [614, 887, 1102, 1284, 1402, 1446]),  # FA4
    "cudnn": ([717, 929, 1076, 1168, 1285, 1266], [543, 732, 893, 1008, 1085, 1142]),  # cuDNN 9.13.0 (rule R47)
    "flash2": ([292, 343, 375, 395, 404, 408], [208, 252, 295, 323, 341, 355]),  # FA2
}


@pytest.mark.parametrize("gpu", ["b200", "gb200", "b300"])
@pytest.mark.parametrize("kernel", sorted(FA4_B200))
def test_blackwell_attention_reads_back_the_flashattention4_figures_at_each_length(gpu, kernel):
    # one set of figures for the family: measured on a B200, applied to GB200 (the same die) and B300 alike
    k = kernel_figures(gpu)
    fwd, bwd = FA4_B200[kernel]
    assert k.attention_seq == (1024.0, 2048.0, 4096.0, 8192.0, 16384.0, 32768.0)
    for n, f, b in zip(k.attention_seq, fwd, bwd, strict=True):
        # the backward does 2.5 times the forward's FLOPs: 3.5 FLOPs take 1/f + 2.5/b
        per_gpu = float(k.attention_flops_for(kernel, n)) / k.attention_sustained
        assert per_gpu == pytest.approx(3.5e12 / (1 / f + 2.5 / b))
    assert "fa4-b200" in k.sources and "fa3" not in k.sources
    assert kernel_sources()["fa4-b200"]["url"] == "https://arxiv.org/abs/2603.05451"


def test_blackwell_attention_interpolates_in_the_log_of_the_length_and_holds_at_the_ends():
    k = kernel_figures("b200")
    per_gpu = lambda kernel, n: float(k.attention_flops_for(kernel, n)) / k.attention_sustained / 1e12  # noqa: E731
    both = lambda f, b: 3.5 / (1 / f + 2.5 / b)  # noqa: E731
    # FA4 at 8k tokens: forward 1426, backward 1284 -> 1,322 TFLOP/s, 0.587 of the 2,250 peak (the 0.6 assumed before)
    assert per_gpu("flash", 8192) == pytest.approx(both(1426, 1284))
    assert per_gpu("flash", 8192) / 2250 == pytest.approx(0.587, abs=1e-3)
    # halfway between 8k and 16k in log2 of the length: the mean of the two combined rates
    assert per_gpu("cudnn", 8192 * 2 ** 0.5) == pytest.approx((both(1168, 1008) + both(1285, 1085)) / 2)
    # held at the ends: 512 tokens at the 1k rate, 128k at the 32k rate
    assert per_gpu("flash", 512) == pytest.approx(both(744, 614))
    assert per_gpu("cudnn", 131072) == pytest.approx(both(1266, 1142))
    # cuDNN 9.13.0 below FA4 at every length (the paper: up to 1.3x), FlashAttention-2 far below both
    for n in k.attention_seq:
        assert per_gpu("flash2", n) < per_gpu("cudnn", n) < per_gpu("flash", n)
    # a call without a causal mask takes the causal rate (no non-causal table for the family, as cuDNN on Hopper)
    assert float(k.attention_flops_for("cudnn", 8192, causal=False)) == float(k.attention_flops_for("cudnn", 8192))
    # the share without a sequence length is kept (0.6, sustained)
    assert k.attention_share_for("cudnn") == pytest.approx(0.6 * k.attention_sustained)


# OpenXLA's default matmul table (xla/service/gpu/model/matmul_interpolator_data.h, TensorFlow's copy at commit
# 372d578, key "sm_90", "bf16xbf16->bf16"), cuBLAS kernel time on a Hopper GPU: (batch, M, N, K) -> TFLOP/s
XLA_SM90_BF16 = {
    (4, 4096, 4096, 4096): 793.13, (4, 4096, 4096, 2048): 764.58, (4, 4096, 4096, 1024): 725.51,
    (4, 4096, 4096, 512): 619.86, (4, 4096, 4096, 256): 503.87,
    (2, 4096, 4096, 4096): 807.67, (2, 4096, 4096, 2048): 763.01, (2, 4096, 4096, 1024): 692.97,
    (1, 4096, 4096, 4096): 783.33, (1, 4096, 4096, 2048): 738.74, (1, 4096, 4096, 1024): 677.44,
    (4, 4096, 2048, 4096): 808.70, (4, 4096, 2048, 2048): 759.30, (4, 4096, 2048, 1024): 687.86,
    (2, 4096, 2048, 4096): 783.19, (2, 4096, 2048, 2048): 733.30, (2, 4096, 2048, 1024): 680.88,
    (4, 4096, 1024, 4096): 777.59, (4, 4096, 1024, 2048): 720.52, (4, 4096, 1024, 1024): 673.84,
    (1, 4096, 2048, 2048): 716.07, (1, 4096, 2048, 1024): 593.23,
}


def _xla_relative(grid):
    """Model over published rate of each table shape, both relative to the batch-4 4096 x 4096 x 4096 entry."""
    from interconnect.topics.seating.kernels import gemm_shape_factor

    base = float(gemm_shape_factor(4 * 4096, 4096, 4096, grid)) / XLA_SM90_BF16[(4, 4096, 4096, 4096)]
    # a batch of b GEMMs is b times the tiles of one: as one GEMM of b x M rows
    return {(b, m, n, k): float(gemm_shape_factor(b * m, n, k, grid)) / tflops / base
            for (b, m, n, k), tflops in XLA_SM90_BF16.items()}


def test_hopper_gemms_keep_the_share_of_the_rate_the_published_per_shape_table_gives():
    # The per-tile cost (k0 = 132 elements of K) and per-call time (6 us at 843 TFLOP/s) fitted to OpenXLA's sm_90
    # table: every shape with M, N, K >= 1,024 (and the K = 256, 512 rows of the largest) within 6 % of the
    # table relative to its largest entry, and the older rule (K under 1,024 in proportion, nothing above) not
    from interconnect.topics.seating.kernels import TileGrid

    k = kernel_figures("h100-sxm")
    assert (k.gemm_k_overhead, k.gemm_reference_k) == (132.0, 20480.0)
    assert k.gemm_call_flop == pytest.approx(6e-6 * 843e12)
    ratios = _xla_relative(k.tile_grid())
    assert all(0.94 <= r <= 1.06 for r in ratios.values()), ratios
    assert ratios[(4, 4096, 4096, 512)] == pytest.approx(1.0, abs=0.03)   # 619.9 of 793.1: 0.78 of the rate
    assert ratios[(4, 4096, 4096, 1024)] == pytest.approx(1.0, abs=0.03)  # 725.5: 0.91
    older = _xla_relative(TileGrid(k.sms))
    assert older[(4, 4096, 4096, 512)] < 0.7 and older[(1, 4096, 2048, 1024)] > 1.3


def test_the_reduction_share_is_the_closed_form_against_the_reference_shape():
    # k / (k + k0) over the same at the shape the sustained rate was measured at (K = 20,480), at most 1; FP8 GEMMs
    # take k0 times the FP8 rate ratio; a family without a sweep keeps min(1, K / 1024)
    from interconnect.topics.seating.kernels import TileGrid, gemm_shape_factor

    hopper = TileGrid(132, 132.0, 20480.0)   # no per-call time: the reduction alone
    whole = (8192, 8448)                    # 64 x 33 tiles of 128 x 256: 16 whole waves on 132 SMs
    for kk in (1024, 2048, 8192):
        expected = (kk / (kk + 132.0)) / (20480 / (20480 + 132.0))
        assert float(gemm_shape_factor(*whole, kk, hopper)) == pytest.approx(expected)
    assert float(gemm_shape_factor(*whole, 65536, hopper)) == 1.0
    fp8 = kernel_figures("h100-sxm").tile_grid(1.765)
    assert fp8.k_overhead == pytest.approx(132.0 * 1.765) and fp8.call_flop == pytest.approx(1.765 * 6e-6 * 843e12)
    assert float(gemm_shape_factor(*whole, 512, 132)) == pytest.approx(0.5)   # no sweep: the older rule
    # a call's fixed time: 1 / (1 / f + F0 / F), F = 2 m n k
    calls = TileGrid(132, 132.0, 20480.0, 5e9)
    f = float(gemm_shape_factor(*whole, 2048, hopper))
    assert float(gemm_shape_factor(*whole, 2048, calls)) == pytest.approx(1 / (1 / f + 5e9 / (2 * 8192 * 8448 * 2048)))


# The same table regenerated with FP8 columns (xla/backends/gpu/cost_model/matmul_interpolator_data.h, TensorFlow's
# copy at commit a305421), key "sm_100": (batch, M, N) -> {K: (BF16, FP8 E4M3) TFLOP/s}
XLA_SM100 = {
    (4, 4096, 4096): {1024: (1350.49, 2651.21), 2048: (1539.85, 3122.48), 4096: (1670.47, 3279.68)},
    (4, 4096, 2048): {1024: (1163.06, 2400.76), 2048: (1345.75, 2884.89), 4096: (1465.71, 3133.33)},
    (4, 4096, 1024): {1024: (1060.49, 1868.70), 2048: (1265.23, 2422.34), 4096: (1411.90, 2662.05)},
    (1, 4096, 4096): {1024: (1075.62, 1895.40), 2048: (1277.79, 2484.97), 4096: (1416.87, 2764.98)},
    (1, 4096, 2048): {1024: (913.82, 1332.19), 2048: (1170.01, 1833.50), 4096: (1343.54, 2499.44)},
}


@pytest.mark.parametrize(("column", "tolerance"), [(0, 0.06), (1, 0.10)])
def test_blackwell_gemms_lose_to_the_reduction_as_the_published_sm100_table_does(column, tolerance):
    # Within each row, K = 1,024 and 2,048 against K = 4,096: BF16 with k0 = 172, FP8 with k0 x 1.967 (the family's FP8
    # ratio; the table's FP8 column fitted alone gives 312-472). No SM count is modelled for Blackwell, so the rows'
    # wave effects cancel in the ratio. Without the reduction term the model would keep the rate flat.
    from interconnect.topics.seating.kernels import gemm_shape_factor

    k = kernel_figures("b200")
    grid = k.tile_grid(1.0 if column == 0 else k.fp8_gemm_ratio)
    for (b, m, n), row in XLA_SM100.items():
        at = {kk: float(gemm_shape_factor(b * m, n, kk, grid)) for kk in row}
        for kk in (1024, 2048):
            measured = row[kk][column] / row[4096][column]
            assert at[kk] / at[4096] == pytest.approx(measured, rel=tolerance), (b, m, n, kk)
        assert row[1024][column] / row[4096][column] < 0.85  # what a flat rate (the model before) could not give


def test_flash_attention_2_without_a_mask_runs_at_its_own_panel_of_the_figure():
    # Dao-AILab/flash-attention assets/flash2_h100_fwd_bwd_benchmark.png at 4f285b3, panel (b), no causal mask, head
    # dim 128: 335 TFLOP/s at 8k and 338 at 16k (panel (d), causal: 308 and 328); held at 16k beyond it
    k = kernel_figures("h100-sxm")
    for seq, tflops in ((8192, 335.0), (16384, 338.0), (65536, 338.0)):
        rate = float(k.attention_flops_for("flash2", seq, causal=False))
        assert rate / k.attention_sustained == pytest.approx(tflops * 1e12)
    assert float(k.attention_flops_for("flash2", 8192, causal=False)) > float(k.attention_flops_for("flash2", 8192))
    # a kernel or family without a figure for calls without a mask keeps its causal rate
    assert float(k.attention_flops_for("flash", 8192, causal=False)) == float(k.attention_flops_for("flash", 8192))
    a100 = kernel_figures("a100-sxm")
    assert float(a100.attention_flops_for("flash2", 8192, causal=False)) == float(
        a100.attention_flops_for("flash2", 8192))


def test_a_table_without_a_mask_needs_the_causal_one_beside_it(tmp_path):
    target = _copy(tmp_path)
    text = target.read_text()
    text = text.replace("flash2_fwd_bwd_tflops = [163.0, 221.0, 265.0, 294.0, 308.0, 328.0]\n", "", 1)
    target.write_text(text)
    with pytest.raises(KernelDataError, match="flash2_noncausal_fwd_bwd_tflops"):
        load_kernel_data(target)


def test_the_blackwell_tables_leave_every_other_family_bit_identical(tmp_path):
    # the file as it was before the FlashAttention-4 figures (Blackwell at the 0.6 share, no tables) reads the same
    # Ampere, Hopper and CDNA 3 figures, field for field
    target = _copy(tmp_path)
    text = target.read_text()
    start = text.index('attention_seq = [1024, 2048')
    end = text.index('attention_table_sources = ["fa4-b200"]\n') + len('attention_table_sources = ["fa4-b200"]\n')
    target.write_text(text[:start] + text[end:])
    before, _ = load_kernel_data(target)
    after, _ = load_kernel_data()
    for gpu in ("a100-sxm", "h100-sxm", "h200", "mi300x", "mi325x"):
        assert before[gpu] == after[gpu]
    assert before["b200"].attention_flops_for("cudnn", 8192) is None
    assert after["b200"].attention_flops_for("cudnn", 8192) is not None


def test_flashattention2_given_forward_and_backward_apart_needs_both(tmp_path):
    target = _copy(tmp_path)
    text = target.read_text()
    line = "flash2_bwd_tflops = [208.0, 252.0, 295.0, 323.0, 341.0, 355.0]\n"
    target.write_text(text.replace(line, ""))
    with pytest.raises(KernelDataError, match=r"family 'blackwell': give 'flash2_fwd_bwd_tflops' or both"):
        load_kernel_data(target)


@pytest.mark.parametrize("gpu", ["h100-sxm", "a100-sxm", "b200", None])
def test_one_gemm_takes_the_same_share_as_the_array_path(gpu):
    # gemm_shape_factor computes one GEMM in plain floats (a plan of one layout calls it thousands of times); that path
    # must give the array path's number exactly, for every tile grid: with a family's per-tile cost and call cost, with
    # SMs and no per-tile cost (TileGrid(108)), and with nothing known (TileGrid(0))
    import numpy as np

    family = kernel_figures(gpu).tile_grid() if gpu else TileGrid(108)
    sizes = [1, 7, 64, 100, 512, 1000, 2048, 3000, 4096, 8192, 12288, 16384, 50000, 150000]
    rng = np.random.default_rng(7)
    for grid in (family, TileGrid(0)):
        for m, n, k in rng.choice(sizes, size=(400, 3)):
            one = gemm_shape_factor(float(m), float(n), float(k), grid)
            many = gemm_shape_factor(np.array([m, 1.0]), np.array([n, 1.0]), np.array([k, 1.0]), grid)[0]
            assert float(one) == float(many), (m, n, k)
