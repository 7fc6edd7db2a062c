"""One record a line: the escaping ``kv scan`` writes a key or a string value with, so that
neither breaks its key<TAB>value line nor shifts its columns. A backslash, tab, newline and
carriage return become \\\\, \\t, \\n and \\r; any other ASCII control character \\xNN; a Unicode
line separator (U+0085, U+2028, U+2029) \\uNNNN; a byte that is not UTF-8 \\xNN. Not a quoting
for shells or for Redis clients: a reader splits the line at its one tab and reads the escapes."""

_NAMED = {ord("\\"): "\\\\", ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r"}
_LINE_BREAKING = [*range(0x20), 0x7F, 0x85, 0x2028, 0x2029]
_NOT_UTF8 = range(0xDC80, 0xDD00)  # the bytes surrogateescape decodes to


def _escaped(code: int) -> str:
    if code in _NAMED:
        return _NAMED[code]
    if code in _NOT_UTF8:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


_TABLE = {code: _escaped(code) for code in [*_NAMED, *_LINE_BREAKING, *_NOT_UTF8]}


def escape_line(data: bytes) -> str:
    """``data`` as text that stays on one line and in one column."""
    return data.decode(errors="surrogateescape").translate(_TABLE)
