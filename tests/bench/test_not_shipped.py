"""The product ships only itself (issue 22): the benchmarks run from a checkout as `python -m bench`,
`drr bench` says where they went, the software identity holds none of them and no product module
may import them."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest
from importlinter import configuration
from importlinter.contracts.forbidden import ForbiddenContract

from engine.software_id import software_identity
from gui.cli import main

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = "the product never imports the benchmarks"


@pytest.mark.parametrize(
    "argv",
    [
        ["bench"],
        ["bench", "--json"],
        ["bench", "--scale", "--tiny", "--out", "x.json", "--pg", "postgresql://h/db"],
    ],
)
def test_drr_bench_says_in_one_line_that_the_benchmarks_are_not_installed(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "not part of the installed product" in err and "make bench" in err


def test_a_wrong_option_of_another_command_is_still_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """`drr bench` takes any option; the other commands still refuse one they do not know."""
    with pytest.raises(SystemExit) as stop:
        main(["rules", "show", "--no-such-option"])
    assert stop.value.code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err


def test_python_m_bench_runs_from_the_checkout() -> None:
    for argv in (["--list"], ["--scale", "--list"]):
        proc = subprocess.run(
            [sys.executable, "-m", "bench", *argv], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr
        names = [line.split()[0] for line in proc.stdout.splitlines()]
        assert ("settle" in names and "stations" in names) if argv == ["--list"] else ("chain" in names)


def test_the_software_identity_hashes_no_benchmark_or_synthetic_journal() -> None:
    """`drr audit software` hashed the 16 benchmark files into the certified digest: editing a
    benchmark changed what a lab approved."""
    paths = [f.path for f in software_identity(ROOT, frozen=False).files]
    assert any(p.startswith("engine/") for p in paths) and any(p.startswith("gui/") for p in paths)
    assert [p for p in paths if "bench" in p.lower() or "synthetic" in p.lower()] == []


def test_the_software_command_lists_no_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "software", "--json"]) == 0
    files = [f["path"] for f in json.loads(capsys.readouterr().out)["files"]]
    assert files and not [p for p in files if "bench" in p or "synthetic" in p]


def test_the_import_contract_fails_when_a_product_module_imports_the_benchmarks() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert "bench" in config["root_packages"]
    (declared,) = [c for c in config["contracts"] if c["name"] == CONTRACT]
    assert set(declared["source_modules"]) == {"engine", "hardware", "gui"}
    configuration.configure()
    contract = ForbiddenContract(
        CONTRACT,
        {"root_packages": config["root_packages"], "include_external_packages": True},
        {k: v for k, v in declared.items() if k not in ("name", "type")},
    )
    graph = grimp.build_graph(*config["root_packages"], include_external_packages=True)
    assert contract.check(graph, verbose=False).kept
    # The edge the synthetic journal had the other way round (it imported engine.floor.demo).
    graph.add_import(
        importer="engine.floor.demo", imported="bench.synthetic", line_number=1, line_contents="import"
    )
    assert not contract.check(graph, verbose=False).kept
