"""Writing output files so that a failure never leaves a partial file or destroys one: every
output is written under a temporary name in its own folder and renamed onto its name only when
complete; an output that is one of the command's inputs (the same file, by inode), a folder, a
device or a path that cannot be created is refused with one line naming it; so is, before it
starts, an output of known size larger than its file system's free room (``check_room``).

Not here: what is written (the Rust core writes traces and iologs, ``run.py`` results).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from smrlab.errors import SmrlabError, UsageError


def check_output(path: Path, inputs: Iterable[str | Path] = ()) -> None:
    """Refuses ``path`` as an output if it is a folder, not a regular file, or one of ``inputs``."""
    if path.is_dir():
        raise UsageError(f"{path}: is a folder; give a file name to write")
    if path.exists() and not path.is_file():
        raise UsageError(f"{path}: is not a regular file (a device or pipe); give a file name to write")
    for source in inputs:
        with contextlib.suppress(OSError):
            if path.exists() and os.path.samefile(path, source):
                raise UsageError(f"{path}: is also an input of this command; write to another file")


@contextlib.contextmanager
def output_file(path: str | Path, inputs: Iterable[str | Path] = (), make_folder: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` (its name ends as ``path``'s does, so format and
    compression suffixes still apply) to write; renamed onto ``path`` when the block ends
    normally, removed when it raises (an error or Ctrl-C). ``make_folder`` creates the folder."""
    path = Path(path)
    check_output(path, inputs)
    folder = writable_folder(path, make_folder)
    temporary = folder / f".smrlab-{os.getpid()}-{path.name}"
    try:
        yield temporary
        os.replace(temporary, path)
    except SmrlabError as error:
        # The core names the file it was writing: name the one the user asked for.
        raise type(error)(str(error).replace(str(temporary), str(path))) from None
    except OSError as error:
        raise UsageError(f"{path}: cannot write it ({error.strerror})") from None
    finally:
        with contextlib.suppress(OSError):
            temporary.unlink()


def writable_folder(path: Path, make_folder: bool) -> Path:
    """The folder ``path`` is to be written in (made first when ``make_folder``); a
    ``UsageError`` naming ``path`` when it cannot be."""
    folder = path.parent
    try:
        if make_folder:
            folder.mkdir(parents=True, exist_ok=True)
        if not folder.is_dir():
            raise UsageError(f"{path}: cannot write there: {folder} is not a folder")
    except OSError as error:
        raise UsageError(f"{path}: cannot write there ({error.strerror})") from None
    return folder


@contextlib.contextmanager
def held_lock(path: Path) -> Iterator[None]:
    """Holds an exclusive lock on ``path`` (a lock file beside it, made with its folder if
    missing) until the block ends: processes making the same output one after another rather
    than at once. The lock file stays: removing it would let a third process lock a new file
    while a second still waits on the old one."""
    import fcntl  # POSIX only, as smrlab is

    lock_path = writable_folder(path, make_folder=True) / (path.name + ".lock")
    try:
        lock = open(lock_path, "a")
    except OSError as error:
        raise UsageError(f"{lock_path}: cannot write there ({error.strerror})") from None
    with lock:  # closing it releases the lock
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def write_text(path: str | Path, text: str, make_folder: bool = True, inputs: Iterable[str | Path] = ()) -> Path:
    """Writes ``text`` to ``path`` through ``output_file`` (refusing ``path`` if it is one of
    ``inputs``)."""
    with output_file(path, inputs=inputs, make_folder=make_folder) as temporary:
        try:
            temporary.write_text(text)
        except OSError as error:
            raise UsageError(f"{path}: cannot write it ({error.strerror})") from None
    return Path(path)


def check_room(folder: str | Path, needed: int, what: str) -> None:
    """Refuses to start writing ``needed`` bytes of ``what`` into ``folder`` (or the nearest
    folder above it that exists) when its file system has less room free."""
    place = Path(folder).absolute()
    while not place.exists() and place != place.parent:
        place = place.parent
    try:
        free = shutil.disk_usage(place).free
    except OSError:
        return  # nowhere to ask: writing will say what is wrong
    if needed > free:
        raise UsageError(
            f"{folder}: {what} needs about {needed / 1e9:,.1f} GB, and its file system has {free / 1e9:,.1f} GB free"
        )
