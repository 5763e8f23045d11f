//! CartPole-v1's dynamics as Gymnasium's `CartPoleEnv` has them (Euler integration at 50 Hz),
//! its termination (the cart past 2.4 or the pole past 12 degrees) and reward (+1 per step,
//! the terminating one included).

use rand::RngExt;
use rand::rngs::StdRng;

const GRAVITY: f64 = 9.8;
const MASS_CART: f64 = 1.0;
const MASS_POLE: f64 = 0.1;
const TOTAL_MASS: f64 = MASS_CART + MASS_POLE;
/// Half the pole's length.
const LENGTH: f64 = 0.5;
const POLE_MASS_LENGTH: f64 = MASS_POLE * LENGTH;
const FORCE: f64 = 10.0;
const TAU: f64 = 0.02;
const THETA_LIMIT: f64 = 12.0 * 2.0 * std::f64::consts::PI / 360.0;
const X_LIMIT: f64 = 2.4;

/// `[x, x_dot, theta, theta_dot]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct CartPole(pub [f64; 4]);

impl CartPole {
    pub(super) const ACTIONS: usize = 2;
    pub(super) const OBSERVED: usize = 4;

    /// Every state variable uniform in [-0.05, 0.05).
    pub(super) fn start(rng: &mut StdRng) -> Self {
        CartPole(std::array::from_fn(|_| rng.random_range(-0.05..0.05)))
    }

    pub(super) fn observe(&self) -> Vec<f32> {
        self.0.iter().map(|&v| v as f32).collect()
    }

    /// Pushes right (1) or left (0); returns the reward and whether the episode terminated.
    pub(super) fn step(&mut self, action: usize) -> (f64, bool) {
        let [x, x_dot, theta, theta_dot] = self.0;
        let force = if action == 1 { FORCE } else { -FORCE };
        let (sin, cos) = theta.sin_cos();
        let temp = (force + POLE_MASS_LENGTH * (theta_dot * theta_dot) * sin) / TOTAL_MASS;
        let theta_acc = (GRAVITY * sin - cos * temp)
            / (LENGTH * (4.0 / 3.0 - MASS_POLE * (cos * cos) / TOTAL_MASS));
        let x_acc = temp - POLE_MASS_LENGTH * theta_acc * cos / TOTAL_MASS;
        self.0 = [
            x + TAU * x_dot,
            x_dot + TAU * x_acc,
            theta + TAU * theta_dot,
            theta_dot + TAU * theta_acc,
        ];
        let [x, _, theta, _] = self.0;
        let terminated =
            !(-X_LIMIT..=X_LIMIT).contains(&x) || !(-THETA_LIMIT..=THETA_LIMIT).contains(&theta);
        (1.0, terminated)
    }
}
