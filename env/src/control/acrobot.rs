//! Acrobot-v1's dynamics as Gymnasium's `AcrobotEnv` has them: the book's equations (Sutton
//! and Barto), one fourth-order Runge-Kutta step of 0.2 s per action, angles wrapped to
//! [-pi, pi] and velocities bounded; it terminates when the tip rises a link's length above
//! the pivot, with -1 per step before and 0 on the terminating one.

use std::f64::consts::PI;

use rand::RngExt;
use rand::rngs::StdRng;

const DT: f64 = 0.2;
const L1: f64 = 1.0;
const M1: f64 = 1.0;
const M2: f64 = 1.0;
const LC1: f64 = 0.5;
const LC2: f64 = 0.5;
const MOI: f64 = 1.0;
const G: f64 = 9.8;
const MAX_VEL_1: f64 = 4.0 * PI;
const MAX_VEL_2: f64 = 9.0 * PI;
const TORQUES: [f64; 3] = [-1.0, 0.0, 1.0];

/// `[theta1, theta2, dtheta1, dtheta2]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Acrobot(pub [f64; 4]);

impl Acrobot {
    pub(super) const ACTIONS: usize = 3;
    pub(super) const OBSERVED: usize = 6;

    /// Every state variable uniform in [-0.1, 0.1), kept in single precision as Gymnasium
    /// keeps its start state.
    pub(super) fn start(rng: &mut StdRng) -> Self {
        Acrobot(std::array::from_fn(|_| {
            f64::from(rng.random_range(-0.1f64..0.1) as f32)
        }))
    }

    pub(super) fn observe(&self) -> Vec<f32> {
        let [t1, t2, d1, d2] = self.0;
        [t1.cos(), t1.sin(), t2.cos(), t2.sin(), d1, d2]
            .iter()
            .map(|&v| v as f32)
            .collect()
    }

    /// Applies torque -1, 0 or +1 (action 0, 1, 2) for 0.2 s; returns the reward and whether
    /// the episode terminated.
    pub(super) fn step(&mut self, action: usize) -> (f64, bool) {
        let torque = TORQUES[action];
        let s = rk4(self.0, torque);
        self.0 = [
            wrap(s[0]),
            wrap(s[1]),
            s[2].clamp(-MAX_VEL_1, MAX_VEL_1),
            s[3].clamp(-MAX_VEL_2, MAX_VEL_2),
        ];
        let [t1, t2, _, _] = self.0;
        let terminated = -t1.cos() - (t2 + t1).cos() > 1.0;
        (if terminated { 0.0 } else { -1.0 }, terminated)
    }
}

/// Gymnasium's `wrap`: shifts by whole turns into [-pi, pi].
fn wrap(mut x: f64) -> f64 {
    while x > PI {
        x -= 2.0 * PI;
    }
    while x < -PI {
        x += 2.0 * PI;
    }
    x
}

fn rk4(y: [f64; 4], torque: f64) -> [f64; 4] {
    let add = |y: [f64; 4], k: [f64; 4], h: f64| std::array::from_fn(|i| y[i] + h * k[i]);
    let k1 = derivatives(y, torque);
    let k2 = derivatives(add(y, k1, DT / 2.0), torque);
    let k3 = derivatives(add(y, k2, DT / 2.0), torque);
    let k4 = derivatives(add(y, k3, DT), torque);
    std::array::from_fn(|i| y[i] + DT / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]))
}

/// The book's equations of motion (Gymnasium's `_dsdt`, `book_or_nips = "book"`).
fn derivatives([theta1, theta2, dtheta1, dtheta2]: [f64; 4], a: f64) -> [f64; 4] {
    let d1 =
        M1 * LC1 * LC1 + M2 * (L1 * L1 + LC2 * LC2 + 2.0 * L1 * LC2 * theta2.cos()) + MOI + MOI;
    let d2 = M2 * (LC2 * LC2 + L1 * LC2 * theta2.cos()) + MOI;
    let phi2 = M2 * LC2 * G * (theta1 + theta2 - PI / 2.0).cos();
    let phi1 = -M2 * L1 * LC2 * dtheta2 * dtheta2 * theta2.sin()
        - 2.0 * M2 * L1 * LC2 * dtheta2 * dtheta1 * theta2.sin()
        + (M1 * LC1 + M2 * L1) * G * (theta1 - PI / 2.0).cos()
        + phi2;
    let ddtheta2 = (a + d2 / d1 * phi1 - M2 * L1 * LC2 * dtheta1 * dtheta1 * theta2.sin() - phi2)
        / (M2 * LC2 * LC2 + MOI - d2 * d2 / d1);
    let ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    [dtheta1, dtheta2, ddtheta1, ddtheta2]
}
