//! The network env's action per edge: a flow of CPUs from one end to the other, chosen on a
//! log ladder `smallest * 2^k`, `k < levels`, in either direction, or none. Choice `levels`
//! is no flow; `levels + 1 + k` moves `smallest * 2^k` from the edge's lower-numbered centre
//! to the higher, `levels - 1 - k` the other way. A flow is one antisymmetric transfer, so
//! whatever a scheduler chooses, the allocations keep their sum.

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowLadder {
    /// The smallest flow, CPUs.
    pub smallest: f64,
    /// Magnitudes per direction.
    pub levels: usize,
}

impl FlowLadder {
    /// Choices per edge.
    pub fn choices(&self) -> usize {
        2 * self.levels + 1
    }

    /// The choice of no flow.
    pub fn none(&self) -> usize {
        self.levels
    }

    /// The flow choice `choice` moves from the edge's first centre to its second (negative:
    /// the other way).
    pub fn flow(&self, choice: usize) -> f64 {
        let level = |k: usize| self.smallest * (k as f64).exp2();
        match choice.cmp(&self.levels) {
            std::cmp::Ordering::Equal => 0.0,
            std::cmp::Ordering::Greater => level(choice - self.levels - 1),
            std::cmp::Ordering::Less => -level(self.levels - 1 - choice),
        }
    }

    /// The allowed choice nearest to `desired` on the log scale, never larger in magnitude
    /// than the largest allowed one in its direction; no flow below `smallest / sqrt 2`.
    pub fn nearest(&self, desired: f64, allowed: &[bool]) -> usize {
        let magnitude = desired.abs();
        if magnitude < self.smallest * std::f64::consts::FRAC_1_SQRT_2 || !desired.is_finite() {
            return self.none();
        }
        let wanted = ((magnitude / self.smallest).log2().round() as usize).min(self.levels - 1);
        let choice = |k: usize| {
            if desired > 0.0 {
                self.levels + 1 + k
            } else {
                self.levels - 1 - k
            }
        };
        (0..=wanted)
            .rev()
            .map(choice)
            .find(|&c| allowed[c])
            .unwrap_or(self.none())
    }
}
