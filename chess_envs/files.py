"""Files users keep (checkpoints, replay data, results), written whole or not at all.

Every writer of the project goes through :func:`write_atomic`: the bytes go to a temporary file
beside the target, are flushed to disk, and the file is renamed over the target, so a crash or
Ctrl-C leaves the old file or the new one, never half of one; Ctrl-C during a write waits for it
(:func:`ctrl_c_deferred`), since libraries such as torch turn an interrupted write into an
unrelated error. Temporary files are named
``.<target>.<pid>.<random>.tmp``; :func:`remove_stale_temporaries` deletes those whose writer
is gone (a run killed while saving). This sits in ``chess_envs`` because it is the one package
every other imports; it needs nothing but the standard library.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["check_writable", "ctrl_c_deferred", "remove_stale_temporaries", "write_atomic", "write_text_atomic"]

_TEMPORARY = re.compile(r"^\..+\.(\d+)(\.[0-9a-f]{8})?\.tmp$")


class _Deferral:
    """The state of :func:`ctrl_c_deferred` (blocks nest: the outermost one takes Ctrl-C)."""

    depth = 0
    pending = False


@contextmanager
def ctrl_c_deferred() -> Iterator[None]:
    """Ctrl-C (SIGINT) during the block waits until the block ends, then goes to the handler that was
    in place (by default: KeyboardInterrupt), so a save of several files finishes whole.

    Only in the main thread (the one that receives signals) and only over a Python handler: where
    SIGINT is ignored or left to the system, the block changes nothing.
    """
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    if _Deferral.depth == 0:
        signal.signal(signal.SIGINT, lambda *_: setattr(_Deferral, "pending", True))
    _Deferral.depth += 1
    try:
        yield
    finally:
        _Deferral.depth -= 1
        if _Deferral.depth == 0:
            handler: Any = previous
            signal.signal(signal.SIGINT, handler)
            if _Deferral.pending:
                _Deferral.pending = False
                handler(signal.SIGINT, None)


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: unreadable, foreign, or for another game."""


def write_atomic(path: str | Path, write: Callable[[BinaryIO], object]) -> Path:
    """Call ``write(handle)`` on a temporary file beside ``path``, then rename it over ``path``.

    The folder is created if needed; the temporary file is removed if ``write`` fails; Ctrl-C
    waits for the write (:func:`ctrl_c_deferred`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    with ctrl_c_deferred():
        try:
            with open(temporary, "wb") as handle:
                write(handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, 0o644)
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    return path


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    data = text.encode("utf-8")
    return write_atomic(path, lambda handle: handle.write(data))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_stale_temporaries(folder: str | Path) -> list[Path]:
    """Delete the temporary files in ``folder`` left by writers that are no longer running."""
    folder = Path(folder)
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for path in folder.iterdir():
        match = _TEMPORARY.match(path.name)
        if match and path.is_file() and not _alive(int(match.group(1))):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def check_writable(path: str | Path) -> None:
    """Make sure ``path`` can be written (its folder is created if needed), before any work that
    would be lost otherwise; OSError says why not."""
    folder = Path(path).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".{Path(path).name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        raise OSError(f"cannot write {path}: {error.strerror or error}") from None
