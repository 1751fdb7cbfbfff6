"""Recompute every entry hash of a journal with a standard RFC 8785 library, without the program.

A lab's own check of a table's SQLite store (docs/journal-evidence.md, "The bytes"): for every chain,
each entry's hash must be SHA-256 over the canonical JSON of its eight fields, entries must run seq
1, 2, ... and each must name the hash before it. From a chain's first `table.started` whose payload
has `"canonical": "rfc8785"` on, the canonical JSON is RFC 8785 (the `rfc8785` package, Trail of
Bits); before it, the legacy rule (Python's json.dumps with sorted keys, no spaces, UTF-8).

    python3 tools/recompute_hashes.py STORE.sqlite [--table T]

Exit 0 when every hash recomputes, 1 naming the first entry that does not, 2 for a file that is
not a journal. Needs only Python's standard library and `pip install rfc8785`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from typing import Any

import rfc8785

GENESIS = "0" * 64


def legacy(value: Any) -> bytes:
    """The byte rule of entries before their chain's switch to RFC 8785."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="the table's SQLite file (a copy)")
    parser.add_argument("--table", help="only this chain")
    args = parser.parse_args(argv)
    try:
        conn = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
        sql = "SELECT table_id, seq, time, user_name, round_id, type, payload, prev_hash, hash FROM journal"
        rows = conn.execute(sql + (" WHERE table_id = ?" if args.table else "") + " ORDER BY table_id, seq",
                            (args.table,) if args.table else ())  # fmt: skip
    except sqlite3.Error as exc:
        print(f"recompute_hashes: {args.store} is not a journal ({exc})", file=sys.stderr)
        return 2
    chains: dict[str, dict[str, Any]] = {}
    for table, seq, time, user, round_id, type_, text, prev_hash, stored in rows:
        chain = chains.setdefault(
            table, {"seq": 0, "prev": GENESIS, "rule": "legacy", "switch": None, "n": 0}
        )
        where = f"table {table} entry {seq}"
        if seq != chain["seq"] + 1 or prev_hash != chain["prev"]:
            print(
                f"{where}: does not follow entry {chain['seq']} (removed, reordered or replaced)",
                file=sys.stderr,
            )
            return 1
        payload = json.loads(text)
        if type_ == "table.started" and payload.get("canonical") == "rfc8785" and chain["switch"] is None:
            chain["rule"], chain["switch"] = "rfc8785", seq
        record = {
            "payload": payload,
            "prev_hash": prev_hash,
            "round_id": round_id,
            "seq": seq,
            "table": table,
            "time": time,
            "type": type_,
            "user": user,
        }
        if chain["rule"] == "rfc8785":  # JSON numbers are IEEE doubles: one beyond 2**53 reads as one
            record["payload"] = json.loads(
                text, parse_int=lambda s: int(s) if abs(int(s)) < 2**53 else float(s)
            )
        data = rfc8785.dumps(record) if chain["rule"] == "rfc8785" else legacy(record)
        if hashlib.sha256(data).hexdigest() != stored:
            print(f"{where}: its hash does not recompute ({chain['rule']} rule)", file=sys.stderr)
            return 1
        chain.update(seq=seq, prev=stored, n=chain["n"] + 1)
    for table, chain in sorted(chains.items()):
        since = f"RFC 8785 from entry {chain['switch']}" if chain["switch"] else "all by the legacy rule"
        print(f"table {table}: {chain['n']} entries, every hash recomputed ({since}), head {chain['prev']}")
    if not chains:
        print("no journal entries", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
