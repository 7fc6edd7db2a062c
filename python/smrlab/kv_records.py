"""What a key of a store holds as ``smrlab kv serve`` sees it, for the command line and the API
to show as a client wrote it: a string, or a hash's fields and values, with the key's expiry.

The server keeps a string without a time to live as its own bytes, and anything else (a hash, a
key with a time to live, a string starting with byte 0xFF) behind a header: 0xFF, the format
(1), the type (``s`` or ``h``), flags (bit 0: an 8-byte little-endian deadline in milliseconds
since the Unix epoch follows), then the string's bytes, or the hash's field count and each field
and value as a 4-byte little-endian length and its bytes. A value that is not such a header
whole is the string it is. This module only reads that layout, as the server does; the server
owns it (``crates/smr-workload/src/server/record.rs``) and nothing here writes it.

Not here: printing a record (``smrlab.cli.kv``), the store itself (``smrlab.kv``).
"""

from __future__ import annotations

import json
import struct
import time
from dataclasses import dataclass
from datetime import UTC, datetime

MARKER, FORMAT = 0xFF, 1
STRING, HASH = ord("s"), ord("h")
HAS_DEADLINE = 1
HEADER = 4


@dataclass(frozen=True)
class Record:
    """A key's value as a client sees it: ``fields`` (name, value pairs in the order they were
    first set) for a hash, ``None`` for a string (then ``value`` holds it); ``deadline_ms``, when
    the key expires (milliseconds since the Unix epoch), or ``None``."""

    value: bytes | None
    fields: tuple[tuple[bytes, bytes], ...] | None = None
    deadline_ms: int | None = None

    @property
    def kind(self) -> str:
        return "string" if self.fields is None else "hash"

    def expired(self, now_ms: int) -> bool:
        """Whether the key is gone for the server at ``now_ms`` (it answers as if it were absent)."""
        return self.deadline_ms is not None and self.deadline_ms <= now_ms

    def expiry(self) -> str | None:
        """When the key expires, as UTC text (``2026-12-07T21:00:00Z``), or ``None``."""
        if self.deadline_ms is None:
            return None
        try:
            moment = datetime.fromtimestamp(self.deadline_ms / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):  # past the year 9999: any 64-bit deadline may be set
            return f"{self.deadline_ms:,} ms after 1970-01-01T00:00:00Z"
        return moment.isoformat(timespec="seconds").replace("+00:00", "Z")

    def shown(self, text) -> str:
        """The value as one line: a string as ``text`` shows bytes, a hash as a JSON object of
        its fields and values, each as ``text`` shows it."""
        if self.fields is None:
            return text(self.value)
        return json.dumps({text(name): text(value) for name, value in self.fields}, ensure_ascii=False)


def decode(stored: bytes) -> Record:
    """The record the server reads from a stored value."""
    if stored[:1] != bytes([MARKER]):
        return Record(stored)
    return _with_header(stored) or Record(stored)


def now_ms() -> int:
    """The time the server compares deadlines with: milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000


def _with_header(stored: bytes) -> Record | None:
    """A header and its payload; ``None`` unless every byte is accounted for."""
    if len(stored) < HEADER or stored[1] != FORMAT or stored[3] & ~HAS_DEADLINE:
        return None
    kind, rest, deadline = stored[2], memoryview(stored)[HEADER:], None
    if stored[3] & HAS_DEADLINE:
        if len(rest) < 8:
            return None
        deadline, rest = struct.unpack_from("<Q", rest)[0], rest[8:]
    if kind == STRING:
        return Record(bytes(rest), deadline_ms=deadline)
    if kind != HASH or len(rest) < 4:
        return None
    count, rest = struct.unpack_from("<I", rest)[0], rest[4:]
    if count > len(rest) // 8:  # each field takes at least its two lengths
        return None
    fields = []
    for _ in range(count):
        pair = []
        for _ in range(2):
            if len(rest) < 4:
                return None
            size, rest = struct.unpack_from("<I", rest)[0], rest[4:]
            if len(rest) < size:
                return None
            pair.append(bytes(rest[:size]))
            rest = rest[size:]
        fields.append((pair[0], pair[1]))
    return None if len(rest) else Record(None, tuple(fields), deadline)
