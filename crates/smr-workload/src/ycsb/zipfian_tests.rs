use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::stats::chi_square_upper_tail;

/// Chi-square goodness of fit of observed counts to probabilities (the last bin takes the rest).
fn fit(counts: &[u64], probabilities: &[f64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let stat: f64 = counts
        .iter()
        .zip(probabilities)
        .map(|(&c, &p)| {
            let e = p * n as f64;
            (c as f64 - e).powi(2) / e
        })
        .sum();
    chi_square_upper_tail(stat, counts.len() - 1)
}

#[test]
fn zeta_of_ten_billion_is_ycsbs_constant() {
    let z = Zipfian::new(0, 9, ZIPFIAN_CONSTANT);
    assert!((z.zeta(SCRAMBLED_ITEMS) - 26.46902820178302).abs() < 1e-6, "{}", z.zeta(SCRAMBLED_ITEMS));
}

#[test]
fn zeta_tail_estimate_matches_the_exact_sum() {
    let z = Zipfian::new(0, 9, 0.99);
    let exact: f64 = (1..=300_000u64).map(|j| (j as f64).powf(-0.99)).sum();
    assert!((z.zeta(300_000) - exact).abs() / exact < 1e-10);
}

#[test]
fn ranks_follow_the_exact_zipf_probabilities() {
    for (items, seed) in [(100u64, 1u64), (1000, 2), (200_000, 3)] {
        let mut z = Zipfian::new(0, items - 1, ZIPFIAN_CONSTANT);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Bins: ranks 0..30 one each, then octaves, the last bin to the end.
        let mut edges: Vec<u64> = (0..30).collect();
        let mut e = 32;
        while e < items {
            edges.push(e);
            e *= 2;
        }
        edges.push(items);
        let mut counts = vec![0u64; edges.len() - 1];
        for _ in 0..200_000 {
            let v = z.next(&mut rng);
            assert!(v < items);
            counts[edges.partition_point(|&x| x <= v) - 1] += 1;
        }
        let zn = z.zeta(items);
        let probs: Vec<f64> = edges.windows(2).map(|w| (z.zeta(w[1]) - z.zeta(w[0])) / zn).collect();
        let p = fit(&counts, &probs);
        assert!(p > 0.001, "items {items}: chi-square p = {p}");
    }
}

#[test]
fn a_growing_item_count_extends_the_normaliser() {
    let mut grown = Zipfian::new(0, 99, 0.99);
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for _ in 0..10 {
        grown.next(&mut rng);
    }
    let _ = grown.next_of(100_000, &mut rng);
    let fresh = Zipfian::new(0, 99_999, 0.99);
    assert!((grown.zeta(100_000) - fresh.zeta(100_000)).abs() < 1e-9);
    let mut counts = [0u64; 2];
    for _ in 0..100_000 {
        counts[(grown.next_of(100_000, &mut rng) >= 100) as usize] += 1;
    }
    let beyond = 1.0 - fresh.zeta(100) / fresh.zeta(100_000);
    assert!(fit(&counts, &[1.0 - beyond, beyond]) > 0.001, "{counts:?}");
}

#[test]
fn scrambled_puts_the_top_ranks_where_the_hash_says() {
    let mut s = ScrambledZipfian::new(0, 9_999, ZIPFIAN_CONSTANT);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let n = 400_000;
    let mut counts = vec![0u64; 10_000];
    for _ in 0..n {
        counts[s.next(&mut rng) as usize] += 1;
    }
    // The five most popular items: their rank's probability plus an even share of the rest
    // (every other rank lands on a hashed item; the spread is close to even).
    let top: Vec<f64> = (0..5).map(|r| s.rank_probability(r)).collect();
    let rest = (1.0 - top.iter().sum::<f64>()) / 10_000.0;
    let mut observed: Vec<u64> = (0..5).map(|r| counts[s.item_of_rank(r) as usize]).collect();
    let mut expected: Vec<f64> = top.iter().map(|p| p + rest).collect();
    observed.push(n - observed.iter().sum::<u64>());
    expected.push(1.0 - expected.iter().sum::<f64>());
    assert!(fit(&observed, &expected) > 0.001, "{observed:?} vs {expected:?}");
}

#[test]
fn latest_favours_the_newest_records() {
    let mut l = Latest::new(1000, ZIPFIAN_CONSTANT);
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let draws: Vec<u64> = (0..10_000).map(|_| l.next(999, &mut rng)).collect();
    assert!(draws.iter().all(|&d| (1..=999).contains(&d)));
    let newest = draws.iter().filter(|&&d| d == 999).count() as f64 / 10_000.0;
    let expected = 1.0 / Zipfian::new(0, 998, 0.99).zeta(999);
    assert!((newest - expected).abs() < 0.02, "{newest} vs {expected}");
}
