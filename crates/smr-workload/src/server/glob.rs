//! Redis's glob patterns for `SCAN ... MATCH`: `*` (any run of bytes), `?` (one byte),
//! `[abc]`, `[a-z]`, `[^a]` (a class, negated with `^`) and `\x` (the byte x itself). Matched by
//! the single-backtrack-point method, so no pattern takes more than quadratic time.

/// Whether `text` matches `pattern`.
pub fn matches(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
            continue;
        }
        if let Some(next) = (p < pattern.len()).then(|| one(pattern, p, text[t])).flatten() {
            p = next;
            t += 1;
            continue;
        }
        match star {
            Some((sp, st)) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// If the single-byte element at `p` matches `c`, where the next element starts.
fn one(pattern: &[u8], p: usize, c: u8) -> Option<usize> {
    match pattern[p] {
        b'?' => Some(p + 1),
        b'\\' if p + 1 < pattern.len() => (pattern[p + 1] == c).then_some(p + 2),
        b'[' => class(pattern, p + 1, c),
        b => (b == c).then_some(p + 1),
    }
}

/// A class starting after its `[`: where it ends if it admits `c`. An unclosed class runs to
/// the end of the pattern, as in Redis.
fn class(pattern: &[u8], mut p: usize, c: u8) -> Option<usize> {
    let negated = pattern.get(p) == Some(&b'^');
    if negated {
        p += 1;
    }
    let mut hit = false;
    while p < pattern.len() && pattern[p] != b']' {
        if pattern[p] == b'\\' && p + 1 < pattern.len() {
            hit |= pattern[p + 1] == c;
            p += 2;
        } else if p + 2 < pattern.len() && pattern[p + 1] == b'-' && pattern[p + 2] != b']' {
            let (lo, hi) = (pattern[p].min(pattern[p + 2]), pattern[p].max(pattern[p + 2]));
            hit |= (lo..=hi).contains(&c);
            p += 3;
        } else {
            hit |= pattern[p] == c;
            p += 1;
        }
    }
    (hit != negated).then_some((p + 1).min(pattern.len()))
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn redis_glob_cases() {
        let yes: [(&str, &str); 9] = [
            ("*", ""),
            ("user*", "user123"),
            ("h?llo", "hello"),
            ("h[ae]llo", "hallo"),
            ("h[^e]llo", "hallo"),
            ("h[a-b]llo", "hbllo"),
            ("*a*b", "xxaxxb"),
            ("\\*", "*"),
            ("a*b*c", "abbbc"),
        ];
        let no: [(&str, &str); 6] = [
            ("user*", "use"),
            ("h?llo", "hllo"),
            ("h[ae]llo", "hillo"),
            ("h[^e]llo", "hello"),
            ("*a*b", "xxaxxbc"),
            ("\\*", "x"),
        ];
        for (p, t) in yes {
            assert!(matches(p.as_bytes(), t.as_bytes()), "{p} should match {t}");
        }
        for (p, t) in no {
            assert!(!matches(p.as_bytes(), t.as_bytes()), "{p} should not match {t}");
        }
        let long = vec![b'a'; 5000];
        assert!(!matches(b"*a*a*a*a*a*a*a*b", &long), "no blow-up");
    }
}
