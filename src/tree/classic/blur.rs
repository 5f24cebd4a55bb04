//! The blurred content ratio of Content Code Blurring (Gottron 2008), in closed form and linear
//! time.
//!
//! Gottron writes the page as a content code vector (1 for a unit of content, 0 for a unit of
//! code) and blurs it with a Gaussian, again and again until it is stable, into the content
//! code ratio of every unit. Gaussians compose: `k` passes of a Gaussian of standard deviation
//! `s` are one pass of a Gaussian of standard deviation `s·√k`, so the blurred vector is one
//! convolution, and the method's scale is that one standard deviation (the "range": 40
//! characters, 25 tokens). The vector `f` is piecewise constant over the page's [`Run`]s (code
//! runs 0, a block its content share), a sum of steps `Δₖ·1[x ≥ pₖ]` at the runs' edges, so
//! the integral of the blurred vector over a block `[a, b)` is
//! `σ·Σₖ Δₖ·(Ψ((b − pₖ)/σ) − Ψ((a − pₖ)/σ))` with `Ψ(z) = zΦ(z) + φ(z)`, the integral of the
//! normal distribution function. An edge more than six standard deviations from the block
//! weighs `Δₖ·(b − a)` when it lies before it (its step is flat there) and nothing after it
//! (below 10⁻⁹ of the block either way): the sum runs over the edges within reach, linear in the
//! page's blocks, whatever its length in characters.
//!
//! Outside the page there is nothing, neither code nor content: a unit's ratio is the blurred
//! content over the blurred page (the Gaussian's weight inside the page), so the first and last
//! blocks are judged by what the page holds around them.

use super::sequence::{starts, Run};

/// Standard deviations beyond which an edge of the content vector is flat or absent.
const REACH: f64 = 6.0;

/// The mean blurred content ratio of each block's run, in block order: the content of the runs
/// convolved with a Gaussian of standard deviation `sigma` units, over the page convolved
/// alike, averaged over the block's units. Each value is in `0..=1`.
pub fn block_ratios(runs: &[Run], sigma: f64, out: &mut Vec<f64>) {
    out.clear();
    let mut at = Vec::with_capacity(runs.len() + 1);
    let total = starts(runs, &mut at);
    // The steps of the content vector: at the start of run k it changes by the run's density
    // less the previous run's; after the last run it falls to 0.
    let mut steps: Vec<(f64, f64)> = Vec::with_capacity(runs.len() + 1);
    let mut level = 0.0;
    for (run, &p) in runs.iter().zip(&at) {
        let density = run.density();
        steps.push((p, density - level));
        level = density;
    }
    steps.push((total, -level));
    let sigma = sigma.max(f64::MIN_POSITIVE);
    let reach = REACH * sigma;
    let psi = |x: f64| psi(x / sigma);
    // Steps before `first` lie out of reach before this block and every later one; `flat` is
    // their sum, the content vector's level after them.
    let (mut first, mut flat) = (0, 0.0);
    for (k, run) in runs.iter().enumerate() {
        if run.block.is_none() {
            continue;
        }
        let (a, b) = (at[k], at[k] + run.len);
        while first < steps.len() && steps[first].0 <= a - reach {
            flat += steps[first].1;
            first += 1;
        }
        let mut content = flat * (b - a);
        for &(p, step) in &steps[first..] {
            if p >= b + reach {
                break;
            }
            if step != 0.0 {
                content += step * sigma * (psi(b - p) - psi(a - p));
            }
        }
        let page = mass(a, b, 0.0, total, sigma);
        out.push(if page > 0.0 {
            (content / page).clamp(0.0, 1.0)
        } else {
            0.0
        });
    }
}

/// `∫ₐᵇ (G_σ ∗ 1_[c,d))(x) dx`: the weight a Gaussian of standard deviation `sigma` carries
/// from the interval `[c, d)` onto `[a, b)`.
fn mass(a: f64, b: f64, c: f64, d: f64, sigma: f64) -> f64 {
    let psi = |x: f64| psi(x / sigma);
    sigma * (psi(b - c) - psi(a - c) - psi(b - d) + psi(a - d))
}

/// `Ψ(z) = ∫_{-∞}^{z} Φ(t) dt = zΦ(z) + φ(z)`.
fn psi(z: f64) -> f64 {
    if z < -40.0 {
        return 0.0;
    }
    z * normal_cdf(z) + (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// Φ, the standard normal distribution function.
fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// The complementary error function, with a fractional error below 1.2·10⁻⁷ everywhere
/// (the Chebyshev fit of Press et al., Numerical Recipes, §6.2).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let tail = t * poly.exp();
    if x >= 0.0 {
        tail
    } else {
        2.0 - tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::classic::fixtures::{page, NEWS};
    use crate::tree::classic::sequence::{runs, Anchors, Unit};
    use crate::tree::classify::Page;

    /// The blocks' mean ratios the slow way: the page expanded unit by unit, each unit blurred
    /// by a sampled Gaussian over the whole page (a sum of `n²` terms), averaged per block.
    fn brute_force(runs: &[Run], sigma: f64) -> Vec<f64> {
        let mut units = Vec::new();
        let mut owner = Vec::new();
        for run in runs {
            let n = run.len.round() as usize;
            units.extend(std::iter::repeat_n(run.density(), n));
            owner.extend(std::iter::repeat_n(run.block, n));
        }
        let weight = |d: f64| (-0.5 * (d / sigma).powi(2)).exp();
        let blocks = runs.iter().filter(|r| r.block.is_some()).count();
        let (mut content, mut page) = (vec![0.0; blocks], vec![0.0; blocks]);
        for (x, block) in owner.iter().enumerate() {
            let Some(block) = *block else { continue };
            for (y, &unit) in units.iter().enumerate() {
                let w = weight(x as f64 - y as f64);
                content[block] += w * unit;
                page[block] += w;
            }
        }
        content.iter().zip(&page).map(|(c, p)| c / p).collect()
    }

    #[test]
    fn the_closed_form_is_the_blur_of_every_unit() {
        let (blocks, stats) = page(NEWS);
        let page = Page::new(&blocks, NEWS.len(), stats);
        let mut sequence = Vec::new();
        let mut ratios = Vec::new();
        for (unit, sigma) in [
            (Unit::Chars, 40.0),
            (Unit::Tokens, 25.0),
            (Unit::Chars, 3.0),
        ] {
            runs(&page, unit, Anchors::Code, &mut sequence);
            block_ratios(&sequence, sigma, &mut ratios);
            let slow = brute_force(&sequence, sigma);
            assert_eq!(ratios.len(), blocks.len());
            for (fast, slow) in ratios.iter().zip(&slow) {
                // A sampled Gaussian against the integral of one: equal to a few parts in a
                // thousand at these scales.
                assert!(
                    (fast - slow).abs() < 5e-3,
                    "{unit:?} σ {sigma}: {fast} vs {slow}"
                );
            }
        }
    }

    #[test]
    fn a_wider_blur_levels_the_page() {
        let (blocks, stats) = page(NEWS);
        let page = Page::new(&blocks, NEWS.len(), stats);
        let mut sequence = Vec::new();
        runs(&page, Unit::Chars, Anchors::Code, &mut sequence);
        let content: f64 = sequence.iter().map(|r| r.content).sum();
        let total: f64 = sequence.iter().map(|r| r.len).sum();
        let mut ratios = Vec::new();
        block_ratios(&sequence, 1e7, &mut ratios);
        for ratio in &ratios {
            assert!((ratio - content / total).abs() < 1e-3);
        }
        block_ratios(&sequence, 1e-3, &mut ratios);
        for (ratio, run) in ratios
            .iter()
            .zip(sequence.iter().filter(|r| r.block.is_some()))
        {
            assert!((ratio - run.density()).abs() < 1e-3);
        }
    }

    #[test]
    fn erfc_matches_known_values() {
        for (x, want) in [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_1),
            (2.0, 0.004_677_734_981_047_266),
            (-1.0, 1.842_700_792_949_715),
        ] {
            assert!((erfc(x) - want).abs() <= 2e-7 * want.max(1e-3), "{x}");
        }
        assert!((psi(3.0) - 3.0).abs() < 1e-3 && psi(-50.0) == 0.0);
    }
}
