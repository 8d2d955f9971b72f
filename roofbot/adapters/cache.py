"""The result cache for sweeps of a working folder (the CLI and pre-commit case): a record
whose file, the files its check looked up, and everything else its result depends on are
unchanged gets that result back without being parsed or checked again.

One row per record path holds:
- the file's lstat signature and the BLAKE2b digest of its bytes: an untouched file hits on
  the signature alone; a touched one is read and hashed, and hits if its bytes are the same;
- the signature and digest of every file the check looked up by id (a per-user/aggregate
  sibling), a missing file included: any change there and the row is stale;
- the fingerprint of the run: roofbot's own source, the Python version, the installed JSON
  reader, validator and jsonschema (which words a schema error), the config, the catalogue
  and the schemas. Change any of them and no row hits;
- the pickled result, and what a run in the default text format or in `--format json`
  printed of the record (render/kept.py): a warm sweep in that format writes those bytes and
  counts its header from them, building no result. A file's error (it doesn't parse or
  validate, or its id isn't its name) is kept like any result; a file that can't be read is
  refused again each run.

The cache lives outside the repository (a pull request can't plant one), and its rows are
unpickled through an allow-list of roofbot's result classes all the same. A cache that can't be
opened, read or written is switched off for the run with a warning: it can cost speed, never
change a result."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import os
import pickle
import sqlite3
import struct
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from roofbot import __version__
from roofbot.core.results import RecordResult

if TYPE_CHECKING:
    from roofbot.adapters.repo import Repository

FORMAT = 8
"""The layout of a row; a new layout starts a new file."""

BUSY_S = 30
"""Seconds a connection waits for another to release the file before it gives up."""

FLUSH_EVERY = 256
"""Rows written in one transaction."""

SCAN_MMAP = 64 << 20
"""Bytes of the database the sweep's scan reads through a memory map rather than a read()
call a page: the scan of a warm sweep took 1.3-1.9x as long without it (a 10k cache, about
40 MB). The pages it touches count in the process's RSS: with a 256 MB map, a warm 100k
sweep peaked at 306-347 MB instead of 75-132 MB, so the map stops at 64 MB."""

Dependency = tuple[str, bytes, bytes]
"""A file a check looked up: its path, signature and digest then ((path, b"-", b"") where
there was no file)."""


class CacheError(Exception):
    """The cache can't be used; the message says why (the run goes on without it)."""


RACY_NS = 2_000_000_000
"""A file modified this recently may change again within the file system's timestamp tick
(a few ms) and keep its signature: its row is checked by content, never by signature (the
"racy git" problem)."""


def signature(st: os.stat_result, now_ns: int) -> bytes:
    """What changes when a file does: size, modification and change times, inode, mode, packed
    in 36 bytes (a third of the time `%d` formatting took, once a record). b"" (which matches
    nothing) for a file modified too recently to be told apart by it."""
    if now_ns - max(st.st_mtime_ns, st.st_ctime_ns) < RACY_NS:
        return b""
    return _pack_signature(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)


_pack_signature = struct.Struct("<QqqQI").pack


def digest(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


def default_dir() -> Path:
    """$ROOFBOT_CACHE_DIR, else $XDG_CACHE_HOME/roofbot, else ~/.cache/roofbot."""
    if env := os.environ.get("ROOFBOT_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "roofbot"


def _prelude() -> tuple[object, ...]:
    """The result classes and enum members, in a fixed order: a row's pickle names them by
    position, so a load imports and looks up no module at all."""
    from roofbot.core import provenance, results

    out: list[object] = []
    for module in (provenance, results):
        for name in sorted(vars(module)):
            obj = getattr(module, name)
            if isinstance(obj, type) and obj.__module__ == module.__name__ and name[0] != "_":
                out.append(obj)
                if issubclass(obj, Enum):
                    out.extend(obj)
    return tuple(out)


_PRELUDE = _prelude()
_POSITION = {id(o): i for i, o in enumerate(_PRELUDE)}


def _prelude_item(position: int) -> object:
    """What a row's pickle calls to name a result class or enum member."""
    return _PRELUDE[position]


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        position = _POSITION.get(id(obj))
        return NotImplemented if position is None else (_prelude_item, (position,))


class _Unpickler(pickle.Unpickler):
    """A row names roofbot's result classes by their position in the prelude; any other
    global is refused, so a row can't make a load call anything else."""

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "_prelude_item":
            return _prelude_item
        raise pickle.UnpicklingError(f"{module}.{name} is not a roofbot result class")


def _dumps(obj: object) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


def load_result(blob: bytes) -> RecordResult | None:
    """A row's result, or None when it isn't one of roofbot's (corrupt, foreign, planted)."""
    try:
        got = _loads(blob)
    except Exception:  # whatever a corrupt or planted row raises, it is a miss
        return None
    return got if isinstance(got, RecordResult) else None


def _loads(blob: bytes) -> Any:
    # A load allocates a few hundred objects, none of them in a cycle: with the collector
    # paused, the load does not trigger collections that re-walk every result kept so far.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _Unpickler(io.BytesIO(blob)).load()
    finally:
        if paused:
            gc.enable()


# ------------------------------------------------------------------ fingerprint
@lru_cache(maxsize=1)
def code_digest() -> bytes:
    """roofbot's own source: a result from other code is never reused."""
    h = hashlib.blake2b(digest_size=16)
    package = Path(__file__).resolve().parents[1]
    for p in sorted(package.rglob("*.py")):
        h.update(p.relative_to(package).as_posix().encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.digest()


def _validator_version() -> str:
    """What reads a record and what decides and words its validity, found without importing
    them: orjson's version (imported anyway); jsonschema-rs, which decides, and jsonschema,
    which words every refusal that error rows keep, by their installed modules' names, sizes
    and times (a new release is new files: importlib.metadata costs 37 ms, importing
    jsonschema 60)."""
    import orjson

    return (
        f"orjson {orjson.__version__}; jsonschema_rs {_installed('jsonschema_rs', '.so')}; "
        f"jsonschema {_installed('jsonschema', '.py')}"
    )


def _installed(package: str, suffix: str) -> list[tuple[str, int, int]] | None:
    """The files of an installed package's folder that end in `suffix`: name, size and
    modification time; None where it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = next(iter(spec.submodule_search_locations))
    stats = [(e.name, e.stat()) for e in os.scandir(folder) if e.name.endswith(suffix)]
    return sorted((name, st.st_size, st.st_mtime_ns) for name, st in stats)


def _canonical(obj: Any) -> Any:
    """A stable form of the config for hashing (sets sorted, enums by value)."""
    if is_dataclass(obj) and not isinstance(obj, type):
        return [
            type(obj).__name__,
            [[f.name, _canonical(getattr(obj, f.name))] for f in fields(obj)],
        ]
    if isinstance(obj, Enum):
        return _canonical(obj.value)
    if isinstance(obj, Mapping):
        return sorted([repr(_canonical(k)), _canonical(v)] for k, v in obj.items())
    if isinstance(obj, frozenset | set):
        return sorted(repr(_canonical(v)) for v in obj)
    if isinstance(obj, list | tuple):
        return [_canonical(v) for v in obj]
    return repr(obj)


def fingerprint(repo: Repository) -> bytes:
    """Everything but the record file itself that a record's result depends on."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT}\0{__version__}\0{sys.version}\0{_validator_version()}\0".encode())
    h.update(code_digest())
    h.update(repr(_canonical(repo.config)).encode())
    for path, raw in sorted(_dependency_files(repo)):
        h.update(path.encode() + b"\0" + digest(raw))
    return h.digest()


def _dependency_files(repo: Repository) -> Iterator[tuple[str, bytes]]:
    for patterns in repo.config.catalogue.values():
        for pattern in patterns:
            for path in repo.tree.glob(pattern):
                yield path, _read_or_empty(repo, path)
    for path in repo.tree.glob("schemas/*.json"):
        yield path, _read_or_empty(repo, path)


def _read_or_empty(repo: Repository, path: str) -> bytes:
    try:
        return repo.tree.read(path, 64 * 1024 * 1024)
    except ValueError:  # TreeError: a link or a folder; it still counts by its name
        return b""


# ------------------------------------------------------------------ the store
class Row(NamedTuple):
    """A record's row as read (a tuple: a warm sweep makes one per record)."""

    sig: bytes
    digest: bytes
    deps_blob: bytes  # the looked-up files, pickled; `deps()` reads them
    blob: bytes | None  # the pickled result; None where the scan left it (`result_blob`)
    kept: bytes | None  # what the run's format printed of the record (render/kept.py)


_as_row: Callable[[tuple[bytes, bytes, bytes, bytes | None, bytes | None]], Row] = partial(
    tuple.__new__, Row
)
"""A Row from a tuple of its fields, in C: a NamedTuple's own constructor is a Python
function, and a warm sweep builds a row a record."""


@dataclass(frozen=True)
class CacheSpec:
    """Where a repository's cache is and what its rows must match: picklable, so forked
    workers open their own connection."""

    db: Path
    fingerprint: bytes

    @classmethod
    def for_repo(cls, repo: Repository, folder: Path, root: Path) -> CacheSpec:
        """One database a repository (by its resolved root) under `folder`."""
        name = hashlib.blake2b(str(root.resolve()).encode(), digest_size=8).hexdigest()
        return cls(folder / f"results-v{FORMAT}-{name}.sqlite3", fingerprint(repo))

    def open(self, kept: str | None = None) -> ResultCache:
        return ResultCache(self, kept)


class ResultCache:
    """One connection to a repository's cache. Raises CacheError when it can't be used."""

    def __init__(self, spec: CacheSpec, kept: str | None = None) -> None:
        """`kept`: the column of the run's kept form ("json" or "lines"): rows are read with
        it and without the pickled result, which is fetched when it is needed; None: rows
        are read with the result."""
        if kept not in (None, *_KEPT):
            raise ValueError(f"no kept form {kept!r}")
        self.spec = spec
        self.kept = kept
        self._columns = f"sig, digest, deps, {'NULL, ' + kept if kept else 'result, NULL'}"
        self._pending: list[tuple[Any, ...]] = []
        self._touched: list[tuple[bytes, str]] = []
        self._texts: list[tuple[bytes, str]] = []
        try:
            spec.db.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(spec.db, timeout=BUSY_S, isolation_level=None)
            _journal_wal(self._db)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS results (path TEXT PRIMARY KEY, fingerprint BLOB, "
                "sig BLOB, digest BLOB, deps BLOB, lines BLOB, json BLOB, result BLOB) "
                f"WITHOUT ROWID{_STRICT}"  # the result last: a scan without it never reads it
            )
            # A second connection reads the scan: in WAL mode it keeps the snapshot it
            # started with while the first one writes.
            reader = sqlite3.connect(spec.db, timeout=BUSY_S)
            reader.execute(f"PRAGMA mmap_size={SCAN_MMAP}")
            self._scan = _Scan(reader, spec.fingerprint, self._columns)
        except (OSError, sqlite3.Error) as e:
            raise CacheError(f"the result cache {spec.db} can't be used: {e}") from None

    def row(self, path: str) -> Row | None:
        """This fingerprint's row for `path`. Paths asked for in sorted order (a sweep) are
        read off one ordered scan, a few µs each; any other order costs one query a path."""
        try:
            got = self._scan.get(path)
            if got is _ASK:
                got = self._db.execute(
                    f"SELECT path, fingerprint, {self._columns} FROM results "
                    "WHERE path = ? AND fingerprint = ?",
                    (path, self.spec.fingerprint),
                ).fetchone()
        except sqlite3.Error as e:
            raise CacheError(f"the result cache {self.spec.db} can't be read: {e}") from None
        if got is None:
            return None
        _, _, sig, dig, deps, blob, kept = got
        if not isinstance(deps, bytes):
            return None
        blob = blob if isinstance(blob, bytes) else None
        return _as_row((sig, dig, deps, blob, kept if isinstance(kept, bytes) else None))

    def result_blob(self, path: str) -> bytes | None:
        """The pickled result of `path`'s row, fetched alone (a scan with a kept form leaves
        it): for the few records a run needs whole, and a row without the run's form."""
        try:
            got = self._db.execute(
                "SELECT result FROM results WHERE path = ? AND fingerprint = ?",
                (path, self.spec.fingerprint),
            ).fetchone()
        except sqlite3.Error as e:
            raise CacheError(f"the result cache {self.spec.db} can't be read: {e}") from None
        return got[0] if got is not None and isinstance(got[0], bytes) else None

    @staticmethod
    def deps(row: Row) -> tuple[Dependency, ...] | None:
        """The files the row's check looked up; None (a miss) for a corrupt or foreign row.
        Many rows share one set (the same sibling, the same gotcha): callers memoize by
        `row.deps_blob`."""
        try:
            deps = _loads(row.deps_blob) if row.deps_blob else ()
        except Exception:  # a corrupt or foreign row is a miss, whatever it raises
            return None
        return deps if _is_deps(deps) else None

    def result(self, path: str, row: Row) -> RecordResult | None:
        """The row's result, or None (a miss) when it isn't one of roofbot's."""
        blob = row.blob if row.blob is not None else self.result_blob(path)
        return load_result(blob) if blob is not None else None

    def put(
        self,
        path: str,
        sig: bytes,
        dig: bytes,
        deps: Iterable[Dependency],
        result: RecordResult,
        kept: bytes | None = None,
    ) -> None:
        """A new row; `kept`: what this run's form printed of the record."""
        blob = _dumps(result)
        deps = tuple(deps)
        deps_blob = _dumps(deps) if deps else b""
        lines, json = (kept, None) if self.kept == "lines" else (None, kept)
        row = (path, self.spec.fingerprint, sig, dig, deps_blob, lines, json, blob)
        self._pending.append(row)
        if len(self._pending) >= FLUSH_EVERY:
            self.flush()

    def add_kept(self, path: str, kept: bytes) -> None:
        """What this run's form printed of a row's record, where the row had none yet."""
        self._texts.append((kept, path))
        if len(self._texts) >= FLUSH_EVERY:
            self.flush()

    def touch(self, path: str, sig: bytes) -> None:
        """A file touched but not changed (a checkout): remember its new signature."""
        self._touched.append((sig, path))
        if len(self._touched) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        touched, self._touched = self._touched, []
        texts, self._texts = self._texts, []
        if pending:
            self._write(f"INSERT OR REPLACE INTO results VALUES ({', '.join('?' * 8)})", pending)
        if touched:
            self._write("UPDATE results SET sig = ? WHERE path = ?", touched)
        if texts:
            assert self.kept in _KEPT  # (an f-string of one of two column names)
            self._write(f"UPDATE results SET {self.kept} = ? WHERE path = ?", texts)

    def prune(self, keep: Iterable[str]) -> None:
        """After a sweep of every record: forget the paths that are gone."""
        self.flush()
        # The paths of the table against the sweep's, in memory. A sweep asked for in sorted
        # order walked the scan along the table from its first path: the rows it stepped over
        # are the only ones it did not ask for, and only those before its first path and
        # after its last are left to read. Else the keys alone (no row is read past its path).
        # A warm sweep deletes nothing and writes nothing.
        try:
            kept = set(keep)
            unasked = self._scan.unasked()
            if unasked is None:
                unasked = [p for (p,) in self._db.execute("SELECT path FROM results")]
            gone = [p for p in unasked if p not in kept]
        except sqlite3.Error as e:
            raise CacheError(f"the result cache {self.spec.db} can't be read: {e}") from None
        if gone:
            self._write("DELETE FROM results WHERE path = ?", [(p,) for p in gone])

    def _write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(sql, rows)
            self._db.execute("COMMIT")
        except sqlite3.Error as e:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise CacheError(f"the result cache {self.spec.db} can't be written: {e}") from None

    def close(self) -> None:
        """Write what is pending and close (raises CacheError when the write fails)."""
        try:
            self.flush()
        finally:
            self.abandon()

    def abandon(self) -> None:
        """Close without writing what is pending (after a failure)."""
        self._pending, self._touched, self._texts = [], [], []
        with contextlib.suppress(sqlite3.Error):
            self._scan.close()
        with contextlib.suppress(sqlite3.Error):
            self._db.close()


_KEPT = ("json", "lines")


def _journal_wal(db: sqlite3.Connection) -> None:
    """Switch the file to WAL (a no-op once it is). Two connections switching a new file at
    once get SQLITE_BUSY at once, without SQLite's busy wait (one of two lost in about 40%
    of tries here: two workers, two runs sharing a cache folder), so this waits and tries
    again, up to the connection's busy timeout."""
    deadline = time.monotonic() + BUSY_S
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if e.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


_STRICT = ", STRICT" if sqlite3.sqlite_version_info >= (3, 37) else ""
"""SQLite refuses a value of the wrong type in a STRICT table (3.37 and later), so a row
can't hold, say, text where the pickled result goes; `row` checks the types either way."""

_ASK: tuple[Any, ...] = ("ask",)
"""The scan can't say: ask the table."""


class _Scan:
    """One pass over a fingerprint's rows in path order, walked along a sorted sweep; it
    notes the rows it steps over, which no path asked for."""

    def __init__(self, db: sqlite3.Connection, fingerprint: bytes, columns: str) -> None:
        self._db = db
        self._fingerprint = fingerprint
        self._columns = columns
        self._rows: Iterator[tuple[Any, ...]] | None = None
        self._head: tuple[Any, ...] | None = None
        self._first = self._last = ""
        self._sorted = True  # every path so far came in order
        self._unasked: list[str] = []

    def get(self, path: str) -> tuple[Any, ...] | None:
        """The row for `path` (path, fingerprint, then the columns), None when there is none,
        _ASK when `path` came out of order."""
        last = self._last
        if path < last:
            self._sorted = False
            return _ASK
        self._last = path
        if self._rows is None:
            self._first = path
            self._rows = iter(
                self._db.execute(
                    f"SELECT path, fingerprint, {self._columns} FROM results "
                    "WHERE path >= ? ORDER BY path",
                    (path,),
                )
            )
            self._head = next(self._rows, None)
        while self._head is not None and self._head[0] < path:
            if self._head[0] != last:  # (paths come in order: only the last can be asked)
                self._unasked.append(self._head[0])
            self._head = next(self._rows, None)
        head = self._head
        if head is None or head[0] != path or head[1] != self._fingerprint:
            return None
        return head

    def unasked(self) -> list[str] | None:
        """After a sweep: the paths of the rows no path asked for, read on to the end of the
        table, and before its first path. None where the sweep came out of order or asked
        for nothing."""
        if not self._sorted or self._rows is None:
            return None
        last, head = self._last, self._head
        while head is not None:
            if head[0] != last:
                self._unasked.append(head[0])
            head = next(self._rows, None)
        self._head = None
        before = self._db.execute("SELECT path FROM results WHERE path < ?", (self._first,))
        return [p for (p,) in before] + self._unasked

    def close(self) -> None:
        self._rows = None
        self._db.close()


def _is_deps(value: object) -> bool:
    return isinstance(value, tuple) and all(
        isinstance(d, tuple)
        and len(d) == 3
        and isinstance(d[0], str)
        and isinstance(d[1], bytes)
        and isinstance(d[2], bytes)
        for d in value
    )
