"""`python audited.py pr ...`: roofbot's CLI under a CPython audit hook that logs every file
opened, every folder listed and every program started, to $ROOFBOT_AUDIT_LOG (one
`event<TAB>detail` line each). The campaign reads the log to prove that nothing outside the
repository was read and that nothing but git was run."""

from __future__ import annotations

import os
import sys
from typing import Any

_log = open(os.environ["ROOFBOT_AUDIT_LOG"], "a", encoding="utf-8", buffering=1)  # noqa: SIM115


def _path(value: Any) -> str | None:
    if isinstance(value, str | bytes | os.PathLike):
        return os.path.abspath(os.fsdecode(value))
    return None  # a file descriptor


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" or event in ("os.listdir", "os.scandir"):
        path = _path(args[0]) if args else None
        if path is not None:
            _log.write(f"{event}\t{path!r}\n")
    elif event == "subprocess.Popen":
        _log.write(f"exec\t{os.fsdecode(args[0])!r}\n")
    elif event in ("os.system", "os.exec", "os.posix_spawn", "os.spawn"):
        _log.write(f"exec\t{args!r}\n")


sys.addaudithook(_hook)

from roofbot.cli import main  # noqa: E402  (imported under the hook: its reads are logged too)

sys.exit(main(sys.argv[1:]))
