"""The start's refusal of planted byte-code: code that would run in place of the program's sources.

Python runs `__pycache__/NAME.TAG.pyc` instead of compiling NAME.py whenever the cache's header
carries the source's mtime and size (or, for a hash-based cache, the source's hash, or no check at
all): it never compares the code with the source. The product writes no caches (gui/cli.py turns
writing off, `make run` and the PyInstaller bootloader start with it off), so a cache Python would
load that is not exactly its source's compilation was put there by someone else. Sourceless
byte-code (`engine/x.pyc`) and extension modules (`engine/x.*.so`, imported before a `.py` of the
same name) have no place in the package folders at all. Every such file is also part of the
software identity (engine.software_id), so the digest names it; this check refuses to start.

It imports only the standard library and runs before gui/cli.py imports the engine (only `gui`'s
own `__init__` and `cli` modules are loaded before it, and a cache of those is still in the digest).
"""

from __future__ import annotations

import _imp
import importlib.machinery
import importlib.util
import marshal
import sys
from pathlib import Path
from types import CodeType

PACKAGES = ("engine", "hardware", "gui", "resources")  # engine.software_id.PACKAGES (read before it)

# The code objects' fields that decide what runs (co_filename is left out: a cache keeps the path it
# was compiled at, and the import system replaces it).
_FIELDS = (
    "co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount",
    "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_stacksize", "co_flags",
    "co_firstlineno", "co_name", "co_qualname", "co_linetable", "co_exceptiontable",
)  # fmt: skip


def _same(a: object, b: object) -> bool:
    """The same constant or code, recursively (types, -0.0 and NaN told apart as the compiler does)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, CodeType):
        assert isinstance(b, CodeType)
        return all(getattr(a, f, None) == getattr(b, f, None) for f in _FIELDS) and _same(
            a.co_consts, b.co_consts
        )
    if isinstance(a, tuple):
        assert isinstance(b, tuple)
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float | complex):
        return repr(a) == repr(b)
    return a == b


def _would_load(cache: bytes, source: Path) -> bool:
    """Whether this interpreter would run `cache` for `source` (importlib's own header checks)."""
    if len(cache) < 16 or cache[:4] != importlib.util.MAGIC_NUMBER:
        return False
    flags = int.from_bytes(cache[4:8], "little")
    if flags & 0b1:  # hash-based (PEP 552)
        checked = bool(flags & 0b10)
        mode = _imp.check_hash_based_pycs
        if mode == "never" or (mode == "default" and not checked):
            return True  # loaded without looking at the source
        return cache[8:16] == importlib.util.source_hash(source.read_bytes())
    st = source.stat()
    return int.from_bytes(cache[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF and (
        int.from_bytes(cache[12:16], "little") == st.st_size & 0xFFFFFFFF
    )


def _not_its_source(cache_path: Path, source: Path, optimize: int) -> str | None:
    """Why the cache at `cache_path` would run something other than `source` (None when it would not)."""
    try:
        data = cache_path.read_bytes()
        if not _would_load(data, source):
            return None  # Python ignores it and compiles the source
        code = marshal.loads(data[16:])
    except (OSError, ValueError, EOFError, TypeError):
        return "is byte-code Python would load for its source, and it cannot be read as code"
    try:
        fresh = compile(source.read_bytes(), str(source), "exec", dont_inherit=True, optimize=optimize)
    except (SyntaxError, ValueError):
        return None  # the source does not compile: importing it fails loudly, a cache cannot be its
    if _same(code, fresh):
        return None
    return "is byte-code that Python would run in place of its source, and it is not that source's code"


def planted_bytecode(root: Path, *, frozen: bool = False) -> list[tuple[Path, str]]:
    """Every file under the program's folders that would run in place of a source (path, why), sorted."""
    tops = [root] if frozen else [root / p for p in PACKAGES if (root / p).is_dir()]
    found: dict[Path, str] = {}
    for top in tops:
        for path in top.rglob("*"):
            name = path.name
            if path.suffix == ".py" and path.is_file():
                for opt in ("", 1, 2):
                    cache = Path(importlib.util.cache_from_source(str(path), optimization=opt))
                    if cache.is_file():
                        why = _not_its_source(cache, path, int(opt or 0))
                        if why is not None:
                            found[cache] = why
            elif frozen or path.parent.name == "__pycache__" or not path.is_file():
                continue  # a bundle holds Python's own extension modules; other caches are not loaded here
            elif name.endswith(tuple(importlib.machinery.BYTECODE_SUFFIXES)) or name.endswith(".pyo"):
                found[path] = "is byte-code outside __pycache__ (the program ships none; Python imports it)"
            elif name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                found[path] = (
                    "is an extension module (the program ships none; Python imports it before a .py)"
                )
    return sorted(found.items())


def refuse_planted_bytecode() -> None:
    """At the start: exit 2 with one line naming the first planted file, before the engine is imported."""
    frozen = bool(getattr(sys, "frozen", False))
    root = Path(sys.executable).resolve().parent if frozen else Path(__file__).resolve().parent.parent
    found = planted_bytecode(root, frozen=frozen)
    if not found:
        return
    path, why = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    print(
        f"drr: refusing to start: {path.relative_to(root).as_posix()} {why}{more}; remove it and check "
        "the program with its approved digest (docs/certification.md, Software identity)",
        file=sys.stderr,
    )
    raise SystemExit(2)
