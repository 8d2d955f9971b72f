"""A records repository: its config, catalogue and records, read through a Tree. Every bad
file becomes an `error` result or a report message; nothing here raises for bad input."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from roofbot.adapters.jsonfile import MAX_BYTES, Parsed, RecordFileError, parse_record_bytes
from roofbot.adapters.schemas import Schemas
from roofbot.adapters.tree import FolderTree, Tree, TreeError
from roofbot.core.catalogue import Catalogue, build_catalogue
from roofbot.core.changes import REFERABLE, path_matches, references
from roofbot.core.check import MAX_SIBLINGS
from roofbot.core.config import Config, ConfigError, parse_config
from roofbot.core.reader.reading import record_texts
from roofbot.core.resolve import mentioned_ids
from roofbot.core.results import Message
from roofbot.core.traps import Sibling

CONFIG_NAME = ".roofbot.yml"
MAX_CONFIG_BYTES = 256 * 1024
MAX_ALIASES = 64
MAX_PREFETCH = 64
"""Files a PR's check looks up together before it starts (`prefetch_checks`), at most."""


def load_config_text(text: str | None) -> Config:
    """Parse `.roofbot.yml` safely: no Python tags, no alias bombs. Raises ConfigError."""
    if text is None or not text.strip():
        return Config()
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{CONFIG_NAME} is over {MAX_CONFIG_BYTES // 1024} KiB")
    try:
        aliases = sum(
            1 for ev in yaml.parse(text, Loader=yaml.SafeLoader) if isinstance(ev, yaml.AliasEvent)
        )
        if aliases > MAX_ALIASES:
            raise ConfigError(f"{CONFIG_NAME} uses {aliases} YAML aliases; at most {MAX_ALIASES}")
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        first = str(e).splitlines()[0] if str(e) else "YAML error"
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ConfigError(f"{CONFIG_NAME} is not valid YAML{where}: {first[:160]}") from None
    return parse_config(data)


@dataclass
class Repository:
    """One version of a records repository."""

    tree: Tree
    config: Config
    schemas: Schemas
    messages: list[Message] = field(default_factory=list)
    _cache: dict[str, Parsed | None] = field(default_factory=dict)
    _catalogue: Catalogue | None = None
    # (not an init field: a copy made by dataclasses.replace, maybe with another config,
    # starts without the readings of this one's siblings)
    _siblings: dict[str, Sibling | None] = field(default_factory=dict, init=False)
    # catalogue files that can't be read, whose id is not their name, or that fail their
    # schema: path -> why (filled when the catalogue is built; roofbot/catalogue_check.py)
    catalogue_problems: dict[str, str] = field(default_factory=dict, init=False)
    _record_paths: list[str] | None = field(default=None, init=False)

    @classmethod
    def open(cls, root: Path, config: Config | None = None) -> Repository:
        tree = FolderTree(root)
        if config is None:
            cfg_path = root / CONFIG_NAME
            text = None
            if cfg_path.is_file() and not cfg_path.is_symlink():
                text = cfg_path.read_text(encoding="utf-8", errors="replace")
            config = load_config_text(text)
        return cls(tree, config, Schemas(root / "schemas"))

    # ------------------------------------------------------------ records
    def record_paths(self) -> list[str]:
        """Every record file's path, sorted (a listing is: one pattern needs no merging).
        Listed once a run: the command line's check that the globs match something and the
        sweep share one listing."""
        if self._record_paths is None:
            if len(self.config.records) == 1:
                self._record_paths = self.tree.glob(self.config.records[0])
            else:
                seen: dict[str, None] = {}
                for pattern in self.config.records:
                    for p in self.tree.glob(pattern):
                        seen.setdefault(p, None)
                self._record_paths = sorted(seen)
        return list(self._record_paths)

    def is_record_path(self, path: str) -> bool:
        return any(path_matches(path, pat) for pat in self.config.records)

    def read(self, path: str) -> Parsed:
        """Parse one record file, or raise RecordFileError/TreeError with the reason."""
        raw = self.tree.read(path, MAX_BYTES)
        return parse_record_bytes(raw)

    def validate(self, path: str, parsed: Parsed) -> str | None:
        """The reason a parsed record is not a record (schema, id/stem), or None."""
        data = parsed.data
        problem = self.schemas.problems(data)
        if problem:
            return problem
        stem = posixpath.splitext(posixpath.basename(path))[0]
        rid = data.get("id")
        if not isinstance(rid, str):
            return "no string `id` field"
        if rid != stem:
            return f"id {rid[:80]!r} differs from the file name {stem!r}: they must match"
        return None

    def candidate_paths(self, rid: str) -> Iterator[str]:
        """The files that would hold the record `rid`, there or not: its name under each
        records pattern (`data/benchmarks/*.json` -> `data/benchmarks/<rid>.json`)."""
        if not rid or "/" in rid or rid.startswith("."):
            return
        for pattern in self.config.records:
            name = posixpath.basename(pattern)
            if "*" not in name:
                continue
            candidate = posixpath.join(posixpath.dirname(pattern), name.replace("*", rid, 1))
            if "*" not in candidate:
                yield candidate

    def prefetch_checks(self, paths: Sequence[str], ids: Iterable[str]) -> None:
        """Where the tree looks up many paths at once (a git commit), look up together what
        a PR's check will read: the records at `paths`, the records `ids` (the calibration
        set), then the records their texts name (the siblings their checks look up). Two
        look-ups in all, where each file looked up alone reads its folder's whole tree object
        again, a cost that grows with the corpus (bench/bench_pr.py holds a PR's cost flat). A PR of more
        than `MAX_PREFETCH` records has their folder listed once instead (`GitTree`)."""
        prefetch = getattr(self.tree, "prefetch", None)
        read_many = getattr(self.tree, "read_many", None)
        if prefetch is None or read_many is None:
            return
        calibration = [p for rid in ids for p in self.candidate_paths(rid)]
        first = list(dict.fromkeys([*paths, *calibration]))
        if len(first) > MAX_PREFETCH:  # the PR's records: their folder is listed once
            first = calibration
        prefetch(first)
        named: list[str] = []
        try:
            for _, raw in read_many([p for p in first if self.tree.exists(p)], MAX_BYTES):
                if isinstance(raw, bytes):
                    try:
                        data = parse_record_bytes(raw).data
                    except RecordFileError:
                        continue
                    named += mentioned_ids(record_texts(data), data.get("id"))[:MAX_SIBLINGS]
        except TreeError:  # the check reads each file again, and says what is wrong
            return
        prefetch(list(dict.fromkeys(p for rid in named for p in self.candidate_paths(rid))))

    def paths_for_id(self, rid: str) -> Iterator[str]:
        """The existing files that would hold the record `rid`: its name under each records
        pattern, then, where a pattern's folder is itself a glob ("data/**/*.json"), every
        record file of that name the pattern matches."""
        seen = set()
        for p in self.candidate_paths(rid):
            if self.tree.exists(p):
                seen.add(p)
                yield p
        if rid and any(c in posixpath.dirname(g) for g in self.config.records for c in "*?["):
            for p in self.record_paths():
                if p not in seen and posixpath.splitext(posixpath.basename(p))[0] == rid:
                    yield p

    def path_for_id(self, rid: str) -> str | None:
        return next(self.paths_for_id(rid), None)

    def find_by_id(self, rid: str) -> dict[str, Any] | None:
        """A benchmark record by id, found by file name without reading the corpus."""
        if rid in self._cache:
            hit = self._cache[rid]
            return hit.data if hit else None
        found: Parsed | None = None
        for candidate in self.paths_for_id(rid):
            try:
                p = self.read(candidate)
            except (RecordFileError, TreeError):
                continue
            if self.validate(candidate, p) is None:
                found = p
                break
        self._cache[rid] = found
        return found.data if found else None

    def siblings_read(self, catalogue: Catalogue) -> dict[str, Sibling | None] | None:
        """What checks of this version read of the records they name, by id (`check_record`'s
        `read`): each resolved once a run, however many records name it. None for a check
        against another catalogue than this version's."""
        return self._siblings if catalogue is self._catalogue else None

    # ------------------------------------------------------------ catalogue
    def catalogue(self) -> Catalogue:
        """The catalogue of this version, built once (its warnings go to `messages` once)."""
        if self._catalogue is None:
            self._catalogue = self._build_catalogue()
        return self._catalogue

    def _build_catalogue(self) -> Catalogue:
        groups: dict[str, list[dict[str, Any]]] = {}
        files: dict[str, dict[str, str]] = {}  # kind -> id -> the file it was read from
        for kind, patterns in self.config.catalogue.items():
            found = list(self._catalogue_records(kind, patterns))
            groups[kind] = [data for _, data in found]
            files[kind] = {str(data["id"]): path for path, data in found}
        return build_catalogue(
            groups.get("accelerators", ()),
            groups.get("models", ()),
            groups.get("quantization", ()),
            (g["id"] for g in groups.get("gotchas", ())),
            files,
        )

    def _catalogue_records(
        self, kind: str, patterns: tuple[str, ...]
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        for pattern in patterns:
            for path in self.tree.glob(pattern):
                try:
                    parsed = self.read(path)
                except (RecordFileError, TreeError) as e:
                    self.messages.append(Message("warning", f"catalogue {path}: {e}"))
                    self.catalogue_problems[path] = str(e)
                    continue
                stem = posixpath.splitext(posixpath.basename(path))[0]
                if parsed.data.get("id") != stem:
                    self.messages.append(
                        Message("warning", f"catalogue {path}: id differs from the file name")
                    )
                    rid = parsed.data.get("id")
                    shown = repr(rid[:80]) if isinstance(rid, str) else "missing"
                    self.catalogue_problems[path] = (
                        f"id {shown} differs from the file name {stem!r}: they must match"
                    )
                    continue
                # validated as the repository's own CI does, and still used: the checks
                # resting on it say so (roofbot/catalogue_check.py)
                problem = self.schemas.problems(parsed.data)
                if problem:
                    self.catalogue_problems[path] = problem
                yield path, parsed.data


# ------------------------------------------------------------------ dependents


def dependents(
    tree: Tree,
    record_paths: Iterable[str],
    changed: set[tuple[str, str]],
    catalogue: Catalogue,
) -> list[str]:
    """Benchmark record paths whose references meet `changed` ((kind, id) pairs). Scans the
    record files once, looking only for the kinds that changed; none when no kind a record
    refers to changed (a gotcha)."""
    kinds = frozenset(kind for kind, _ in changed) & REFERABLE
    if not kinds:
        return []
    paths = list(record_paths)
    read_many = getattr(tree, "read_many", None)
    if read_many is not None:  # a git tree: one batched pass over the object database
        contents: Iterable[tuple[str, bytes | TreeError]] = read_many(paths, MAX_BYTES)
    else:
        contents = ((p, _read_or_error(tree, p)) for p in paths)
    out = []
    for path, raw in contents:
        if isinstance(raw, TreeError):
            continue
        try:
            data = parse_record_bytes(raw).data
        except RecordFileError:
            continue
        if references(data, catalogue, kinds) & changed:
            out.append(path)
    return out


def _read_or_error(tree: Tree, path: str) -> bytes | TreeError:
    try:
        return tree.read(path, MAX_BYTES)
    except TreeError as e:
        return e
