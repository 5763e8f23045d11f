//! Gradient compression on the push: what a worker sends, how many bits it takes, and the
//! gradient the server applies (the decompressed one, so convergence changes for real).
//!
//! - QSGD (Alistarh et al. 2017): `g_k -> ||g|| sign(g_k) xi_k / s`, `xi_k` rounding
//!   `s |g_k| / ||g||` up with probability its fractional part: unbiased. Sent as the norm
//!   (32 bits) and per coordinate a sign and a level index, `1 + ceil(log2(s + 1))` bits.
//! - Top-k (Stich et al. 2018) with error feedback: the `k = ceil(ratio d)` largest entries of
//!   `g + e` are sent as (32-bit value, `ceil(log2 d)`-bit index); `e` keeps what was dropped.
//! - Sign with error feedback (Karimireddy et al. 2019): `mean|g + e| sign(g + e)`, one bit a
//!   coordinate and a 32-bit scale; `e` keeps the difference.

use rand::RngExt;
use rand::rngs::StdRng;

/// A gradient compressor, set by `job.compression`.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Compression {
    /// 32-bit floats.
    #[default]
    None,
    Qsgd {
        levels: u32,
    },
    TopK {
        ratio: f64,
    },
    Sign,
}

impl Compression {
    /// Bits of one compressed message of `d` coordinates.
    pub fn bits(&self, d: usize) -> u64 {
        let d64 = d as u64;
        let bits_for = |n: u64| u64::from(u64::BITS - n.saturating_sub(1).leading_zeros());
        match *self {
            Compression::None => 32 * d64,
            Compression::Qsgd { levels } => 32 + d64 * (1 + bits_for(u64::from(levels) + 1)),
            Compression::TopK { .. } => self.kept(d) as u64 * (32 + bits_for(d64)),
            Compression::Sign => 32 + d64,
        }
    }

    /// Top-k's `k` (every coordinate for the others).
    pub fn kept(&self, d: usize) -> usize {
        match *self {
            Compression::TopK { ratio } => ((ratio * d as f64).ceil() as usize).clamp(1, d),
            _ => d,
        }
    }

    /// Whether the compressor keeps a residual per worker.
    pub fn feeds_back(&self) -> bool {
        matches!(self, Compression::TopK { .. } | Compression::Sign)
    }

    /// Floating-point operations per coordinate to compress and decompress (a virtual cost
    /// on the worker's compute rate): a pass for the norm and one to quantise; a selection
    /// and the residual; the scale, the signs and the residual.
    pub fn flops_per_coordinate(&self) -> f64 {
        match self {
            Compression::None => 0.0,
            Compression::Qsgd { .. } => 6.0,
            Compression::TopK { .. } => 10.0,
            Compression::Sign => 5.0,
        }
    }

    /// The message `grad` becomes, as the server decodes it. `residual` is the worker's error
    /// feedback (used and updated by top-k and sign, left alone otherwise).
    pub fn compress(&self, grad: &[f32], residual: &mut [f32], rng: &mut StdRng) -> Vec<f32> {
        match *self {
            Compression::None => grad.to_vec(),
            Compression::Qsgd { levels } => {
                let norm = grad.iter().map(|g| g * g).sum::<f32>().sqrt();
                if norm == 0.0 {
                    return vec![0.0; grad.len()];
                }
                let s = levels as f32;
                grad.iter()
                    .map(|&g| {
                        let scaled = s * g.abs() / norm;
                        let floor = scaled.floor();
                        let level =
                            floor + f32::from(u8::from(rng.random::<f32>() < scaled - floor));
                        norm * g.signum() * level / s
                    })
                    .collect()
            }
            Compression::TopK { .. } => {
                let corrected: Vec<f32> = grad.iter().zip(&*residual).map(|(g, e)| g + e).collect();
                let k = self.kept(grad.len());
                let mut order: Vec<usize> = (0..grad.len()).collect();
                // ties by index, so the kept set is the same on every run
                order.select_nth_unstable_by(k - 1, |&a, &b| {
                    corrected[b]
                        .abs()
                        .total_cmp(&corrected[a].abs())
                        .then(a.cmp(&b))
                });
                let mut sent = vec![0.0; grad.len()];
                for &i in &order[..k] {
                    sent[i] = corrected[i];
                }
                for ((e, c), s) in residual.iter_mut().zip(&corrected).zip(&sent) {
                    *e = c - s;
                }
                sent
            }
            Compression::Sign => {
                let corrected: Vec<f32> = grad.iter().zip(&*residual).map(|(g, e)| g + e).collect();
                let scale = corrected.iter().map(|c| c.abs()).sum::<f32>() / grad.len() as f32;
                let sent: Vec<f32> = corrected
                    .iter()
                    .map(|&c| if c == 0.0 { 0.0 } else { scale * c.signum() })
                    .collect();
                for ((e, c), s) in residual.iter_mut().zip(&corrected).zip(&sent) {
                    *e = c - s;
                }
                sent
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn gradient(d: usize, seed: u64) -> Vec<f32> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..d).map(|_| rng.random_range(-1.0f32..1.0)).collect()
    }

    #[test]
    fn qsgd_is_unbiased_and_sends_its_levels() {
        let g = gradient(50, 1);
        let q = Compression::Qsgd { levels: 4 };
        let mut rng = StdRng::seed_from_u64(2);
        let mut mean = vec![0.0f64; g.len()];
        let draws = 20_000;
        let norm = g.iter().map(|x| x * x).sum::<f32>().sqrt();
        for _ in 0..draws {
            let sent = q.compress(&g, &mut [], &mut rng);
            for (m, s) in mean.iter_mut().zip(&sent) {
                // every coordinate is a multiple of norm / s
                let level = s.abs() * 4.0 / norm;
                assert!((level - level.round()).abs() < 1e-4, "{level}");
                *m += f64::from(*s) / f64::from(draws);
            }
        }
        for (m, g) in mean.iter().zip(&g) {
            assert!((m - f64::from(*g)).abs() < 0.02, "{m} against {g}");
        }
        // norm, then a sign and 3 bits of level (0..=4) per coordinate
        assert_eq!(q.bits(50), 32 + 50 * 4);
        assert_eq!(Compression::None.bits(50), 1600);
        // 5 of 50 entries, a 32-bit value and a 6-bit index each
        assert_eq!(Compression::TopK { ratio: 0.1 }.bits(50), 5 * 38);
        assert_eq!(Compression::Sign.bits(50), 82);
    }

    #[test]
    fn error_feedback_keeps_exactly_what_was_not_sent() {
        let mut rng = StdRng::seed_from_u64(0);
        for compression in [Compression::TopK { ratio: 0.1 }, Compression::Sign] {
            let mut residual = vec![0.0f32; 40];
            let mut sent_total = vec![0.0f64; 40];
            let mut grad_total = vec![0.0f64; 40];
            for step in 0..30 {
                let g = gradient(40, step);
                let before = residual.clone();
                let sent = compression.compress(&g, &mut residual, &mut rng);
                for k in 0..40 {
                    // what is sent plus what is kept is the gradient plus what was kept before
                    assert!((sent[k] + residual[k] - (g[k] + before[k])).abs() < 1e-6);
                    sent_total[k] += f64::from(sent[k]);
                    grad_total[k] += f64::from(g[k]);
                }
                let nonzero = sent.iter().filter(|s| **s != 0.0).count();
                assert!(
                    nonzero <= compression.kept(40),
                    "{compression:?}: {nonzero}"
                );
            }
            for k in 0..40 {
                let gap = grad_total[k] - sent_total[k] - f64::from(residual[k]);
                assert!(gap.abs() < 1e-4, "{compression:?}: {gap}");
            }
        }
    }
}
