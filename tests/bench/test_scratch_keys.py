"""`python -m bench` keeps its scratch stores' keys out of the user's key directory (a table PC's keys)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from bench import cli as bench_cmd


def test_drr_bench_writes_no_key_into_the_users_key_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.store import keys

    users = tmp_path / "users-keys"
    monkeypatch.setenv("DRR_KEY_DIR", str(users))
    seen: list[str] = []

    def group() -> dict[str, float]:  # a bench group that makes a table key, as the table benches do
        seen.append(os.environ["DRR_KEY_DIR"])
        keys.ensure(str(tmp_path / "scratch.sqlite"), "B1")
        return {"figure": 1.0}

    monkeypatch.setattr(bench_cmd, "collect", lambda: {"keys": group})
    args = argparse.Namespace(scale=False, out=None, tiny=False, pg=None, workdir=None, list=False)
    args.only, args.json = None, True
    assert bench_cmd.run(args) == 0
    assert seen and seen[0] != str(users)
    assert not users.exists() or not list(users.iterdir())
    assert os.environ["DRR_KEY_DIR"] == str(users)  # put back
