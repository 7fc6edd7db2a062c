//! Inline commands, as a person types them into telnet: one line (ended by LF, a CR before it
//! dropped), split into arguments as Redis splits them (its `sdssplitargs`): runs of white
//! space separate arguments; double quotes take the escapes `\n`, `\r`, `\t`, `\b`, `\a`,
//! `\xHH` and a backslash before any other character for that character; single quotes take
//! only `\'`; a quote may start mid-argument (`a"b c"` is `ab c`), and a closing quote must
//! be followed by white space or the end of the line, else (or with a quote left open) the line
//! is refused as "unbalanced quotes", as Redis refuses it. A line holding a NUL byte is refused
//! (Redis looks for the line's end with `strchr`, which stops at the NUL, and waits for more
//! bytes that never end the line). Not here: arrays of bulk strings (`super`).

use super::{Args, Limits, ProtocolError};

/// White space as C's `isspace` has it (`is_ascii_whitespace` lacks the vertical tab).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Parses the inline command at `at` (see the module comment) into `args`; `None` until its
/// line has arrived.
pub(super) fn parse_inline(
    buf: &[u8],
    at: usize,
    limits: &Limits,
    args: &mut Args,
) -> Result<Option<usize>, ProtocolError> {
    let rest = &buf[at..];
    let Some(nl) = rest.iter().take(limits.max_inline + 1).position(|&b| b == b'\n') else {
        if rest.len() > limits.max_inline {
            return Err(ProtocolError(format!("inline command longer than {} bytes", limits.max_inline)));
        }
        return Ok(None);
    };
    let mut line = &rest[..nl];
    if let Some(stripped) = line.strip_suffix(b"\r") {
        line = stripped;
    }
    if line.contains(&0) {
        return Err(ProtocolError("NUL byte in an inline command (send it in a bulk string)".into()));
    }
    split(line, at, args)?;
    Ok(Some(at + nl + 1))
}

/// Splits `line` (which starts at `at` of the input) into `args`.
fn split(line: &[u8], at: usize, args: &mut Args) -> Result<(), ProtocolError> {
    let unbalanced = || ProtocolError("unbalanced quotes in request".into());
    let mut i = 0;
    loop {
        while i < line.len() && is_space(line[i]) {
            i += 1;
        }
        if i == line.len() {
            return Ok(());
        }
        // An argument without quotes is a run of the input, taken as it is.
        let word_end =
            line[i..].iter().position(|&b| matches!(b, b' ' | b'\n' | b'\r' | b'\t')).map_or(line.len(), |n| i + n);
        if !line[i..word_end].iter().any(|&b| b == b'"' || b == b'\'') {
            args.push_input(at + i..at + word_end);
            i = word_end;
            continue;
        }
        let start = args.start_decoded();
        let (mut in_double, mut in_single) = (false, false);
        loop {
            let Some(&b) = line.get(i) else {
                if in_double || in_single {
                    return Err(unbalanced());
                }
                break;
            };
            if in_double {
                match b {
                    b'\\'
                        if line.get(i + 1) == Some(&b'x')
                            && line.get(i + 2).and_then(|&h| hex_value(h)).is_some()
                            && line.get(i + 3).and_then(|&h| hex_value(h)).is_some() =>
                    {
                        let (hi, lo) = (hex_value(line[i + 2]).unwrap_or(0), hex_value(line[i + 3]).unwrap_or(0));
                        args.decoded.push(hi * 16 + lo);
                        i += 3;
                    }
                    b'\\' if i + 1 < line.len() => {
                        i += 1;
                        args.decoded.push(match line[i] {
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            b'b' => b'\x08',
                            b'a' => b'\x07',
                            other => other,
                        });
                    }
                    b'"' => {
                        if line.get(i + 1).is_some_and(|&n| !is_space(n)) {
                            return Err(unbalanced());
                        }
                        i += 1;
                        break;
                    }
                    _ => args.decoded.push(b),
                }
            } else if in_single {
                match b {
                    b'\\' if line.get(i + 1) == Some(&b'\'') => {
                        args.decoded.push(b'\'');
                        i += 1;
                    }
                    b'\'' => {
                        if line.get(i + 1).is_some_and(|&n| !is_space(n)) {
                            return Err(unbalanced());
                        }
                        i += 1;
                        break;
                    }
                    _ => args.decoded.push(b),
                }
            } else {
                match b {
                    b' ' | b'\n' | b'\r' | b'\t' => break,
                    b'"' => in_double = true,
                    b'\'' => in_single = true,
                    _ => args.decoded.push(b),
                }
            }
            i += 1;
        }
        args.end_decoded(start);
    }
}
