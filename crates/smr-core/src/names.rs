//! The declared names nearest a misspelt one, for messages that refuse an unknown name ("did you
//! mean 'buffer'?"). Similarity is Ratcliff and Obershelp's (twice the characters the two
//! names share in their longest common runs, over both lengths), as Python's difflib measures
//! it, so a suggestion reads the same from the core and from the Python front. Not here: which
//! names are declared (the callers pass them).

/// The names of `known` at least 0.6 similar to `word`, most similar first (ties in the order
/// of `known`), at most `most` of them.
pub fn nearest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>, most: usize) -> Vec<String> {
    let word: Vec<char> = word.chars().collect();
    let mut scored: Vec<(f64, usize, &str)> = known
        .into_iter()
        .enumerate()
        .filter_map(|(order, name)| {
            let chars: Vec<char> = name.chars().collect();
            let total = word.len() + chars.len();
            let score = if total == 0 { 1.0 } else { 2.0 * matching(&word, &chars) as f64 / total as f64 };
            (score >= 0.6).then_some((score, order, name))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(most).map(|(_, _, name)| name.to_string()).collect()
}

/// `" (did you mean 'X'?)"` for the nearest name, or nothing when none is near.
pub fn did_you_mean(nearest: &[String]) -> String {
    nearest.first().map(|name| format!(" (did you mean '{name}'?)")).unwrap_or_default()
}

/// Characters of `a` and `b` in their longest common run, then recursively in the parts to its
/// left and to its right.
fn matching(a: &[char], b: &[char]) -> usize {
    let (mut best, mut at_a, mut at_b) = (0, 0, 0);
    for i in 0..a.len() {
        for j in 0..b.len() {
            let run = a[i..].iter().zip(&b[j..]).take_while(|(x, y)| x == y).count();
            if run > best {
                (best, at_a, at_b) = (run, i, j);
            }
        }
    }
    if best == 0 {
        return 0;
    }
    best + matching(&a[..at_a], &b[..at_b]) + matching(&a[at_a + best..], &b[at_b + best..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_names_as_difflib_finds_them() {
        let keys = ["buffer", "buffer_on", "band_min", "band_max", "band_size"];
        assert_eq!(nearest("bufer", keys, 1), ["buffer"]);
        assert_eq!(nearest("bufer_on", keys, 1), ["buffer_on"]);
        assert_eq!(nearest("band", keys, 3), ["band_min", "band_max", "band_size"]);
        assert!(nearest("zone", keys, 3).is_empty());
        assert_eq!(did_you_mean(&nearest("band_mn", keys, 3)), " (did you mean 'band_min'?)");
        assert_eq!(did_you_mean(&[]), "");
    }
}
