//! What a centre sends passes through a quantiser: exact, logarithmic
//! (`q(z) = sign(z) exp(rho round(ln|z| / rho))`), or uniform with the same bits over the
//! same range, to compare. Bits per message are counted for each.

/// A channel's quantiser.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Quantizer {
    /// Sent as a 64-bit float.
    Exact,
    /// Log-scale levels `exp(rho k)`: a relative error of at most `exp(rho / 2) - 1`.
    Log {
        rho: f64,
        /// Magnitudes sent lie in `[smallest, largest]` (levels outside are clamped and
        /// anything below `smallest / 2` is sent as zero); together with `rho` this fixes the
        /// bits.
        smallest: f64,
        largest: f64,
    },
    /// `2^bits - 1` evenly spaced levels over `[-largest, largest]`.
    Uniform { bits: u32, largest: f64 },
}

impl Quantizer {
    pub fn quantize(&self, z: f64) -> f64 {
        match *self {
            Quantizer::Exact => z,
            Quantizer::Log {
                rho,
                smallest,
                largest,
            } => {
                let magnitude = z.abs();
                if magnitude < smallest / 2.0 {
                    return 0.0;
                }
                let level = (magnitude.ln() / rho).round() * rho;
                let clamped = level.clamp(smallest.ln(), largest.ln());
                clamped.exp().copysign(z)
            }
            Quantizer::Uniform { bits, largest } => {
                let half_levels = ((1u64 << bits) - 2) as f64 / 2.0;
                let step = largest / half_levels;
                ((z / step).round() * step).clamp(-largest, largest)
            }
        }
    }

    /// Bits one message takes: a sign, a zero flag and the level index for the log
    /// quantiser, `bits` for the uniform one, 64 exact.
    pub fn bits(&self) -> u32 {
        match *self {
            Quantizer::Exact => 64,
            Quantizer::Log {
                rho,
                smallest,
                largest,
            } => {
                let levels = ((largest / smallest).ln() / rho).ceil() as u64 + 1;
                2 + u64::BITS - (levels - 1).max(1).leading_zeros()
            }
            Quantizer::Uniform { bits, .. } => bits,
        }
    }

    /// The uniform quantiser with this one's bits over its range.
    pub fn uniform_twin(&self) -> Quantizer {
        match *self {
            Quantizer::Log { largest, .. } => Quantizer::Uniform {
                bits: self.bits(),
                largest,
            },
            other => other,
        }
    }
}
