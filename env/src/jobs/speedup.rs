//! The surrogate's progress model: a template's speed-up curve over its containers, fitted
//! from real runs by experiments/src/traces/template_fit.rs (`schedlab templates fit`).

use super::schema::Template;

impl Template {
    pub fn speedup(&self, workers: f64, size: f64) -> f64 {
        speedup(self.contention, self.size_exponent, workers, size)
    }
}

/// The templates' speed-up curve: `S(x) = x / (1 + contention (x - 1))` of
/// `x = workers * size^size_exponent`.
pub fn speedup(contention: f64, size_exponent: f64, workers: f64, size: f64) -> f64 {
    let x = workers * size.powf(size_exponent);
    x / (1.0 + contention * (x - 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speedup_is_linear_without_contention_and_flat_with_one() {
        let t = |s| Template {
            name: "t".into(),
            contention: s,
            size_exponent: 1.0,
            utilisation: [1.0; 3],
            fitted_from: String::new(),
            workload: String::new(),
            time_at_one_s: 0.0,
            job_type: None,
        };
        assert!((t(0.0).speedup(4.0, 1.0) - 4.0).abs() < 1e-12);
        assert!((t(0.0).speedup(2.0, 2.0) - 4.0).abs() < 1e-12);
        assert!(t(0.5).speedup(8.0, 1.0) < 2.0);
    }
}
