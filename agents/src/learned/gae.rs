//! Generalised advantage estimation (Schulman et al., 2016) over a rollout of one env copy.

/// One step of a rollout, as the advantage estimate needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition {
    pub reward: f32,
    /// `V(s_t)`.
    pub value: f32,
    /// `V(s_{t+1})`; after a truncation, the value of the episode's final observation (not of
    /// the next episode's first, which auto-reset returns).
    pub next_value: f32,
    /// The episode ended at the target: nothing follows, no bootstrap.
    pub terminated: bool,
    /// The episode was cut by a limit: bootstrap from `next_value`, but the next step belongs
    /// to another episode.
    pub truncated: bool,
    /// This step's discount `gamma_t`: a constant per step, or `gamma^(elapsed / time
    /// unit)` when time sets it (1 for a same-time decision).
    pub discount: f32,
    /// This step's `lambda_t` ([`step_lambda`]).
    pub lambda: f32,
}

/// What GAE's `lambda` is counted in where time sets the discount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LambdaPer {
    /// `lambda` per step, whatever time it took: across 64 same-time choices the chain
    /// carries `lambda^64` (0.04 at 0.95) of the next interval's cost back to the first.
    Choice,
    /// `lambda^(elapsed / time unit)`, as the discount: same-time choices carry it whole, so
    /// a decision point's first choice sees the interval after it as its last one does.
    Time,
    /// `lambda = 1` across a same-time step, `lambda` per timed step whatever its length: a
    /// decision point's choices share the next interval's advantage whole, as with `Time`,
    /// while the trace across intervals decays per interval, as with `Choice`.
    Point,
}

/// The `lambda_t` of a step that took `elapsed_s`: `lambda` per step when `time_unit_s` is 0
/// or `per` is [`LambdaPer::Choice`]; else `lambda^(elapsed_s / time_unit_s)` per
/// [`LambdaPer::Time`], and 1 for a same-time step, `lambda` for a timed one, per
/// [`LambdaPer::Point`].
pub fn step_lambda(lambda: f64, per: LambdaPer, time_unit_s: f64, elapsed_s: f64) -> f32 {
    match per {
        LambdaPer::Time if time_unit_s > 0.0 => {
            lambda.powf(elapsed_s.max(0.0) / time_unit_s) as f32
        }
        LambdaPer::Point if time_unit_s > 0.0 && elapsed_s <= 0.0 => 1.0,
        _ => lambda as f32,
    }
}

/// The discount of a step that took `elapsed_s` virtual seconds: `gamma` per step when
/// `time_unit_s` is 0, else `gamma^(elapsed_s / time_unit_s)`, so same-time decisions cost
/// no discount and the horizon is set in time, not in steps.
pub fn step_discount(gamma: f64, time_unit_s: f64, elapsed_s: f64) -> f32 {
    if time_unit_s > 0.0 {
        gamma.powf(elapsed_s.max(0.0) / time_unit_s) as f32
    } else {
        gamma as f32
    }
}

/// Advantages `A_t = delta_t + gamma_t lambda_t A_{t+1}` (the chain cut at episode ends) with
/// `delta_t = r_t + gamma_t V(s_{t+1}) - V(s_t)` (no bootstrap after termination), and the
/// value targets `A_t + V(s_t)`; `gamma_t` and `lambda_t` are each step's own.
pub fn gae(steps: &[Transition]) -> (Vec<f32>, Vec<f32>) {
    let mut advantages = vec![0.0; steps.len()];
    let mut next_advantage = 0.0;
    for (t, s) in steps.iter().enumerate().rev() {
        let gamma = s.discount;
        let bootstrap = if s.terminated {
            0.0
        } else {
            gamma * s.next_value
        };
        let delta = s.reward + bootstrap - s.value;
        let carry = if s.terminated || s.truncated {
            0.0
        } else {
            gamma * s.lambda * next_advantage
        };
        advantages[t] = delta + carry;
        next_advantage = advantages[t];
    }
    let returns = advantages
        .iter()
        .zip(steps)
        .map(|(a, s)| a + s.value)
        .collect();
    (advantages, returns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(terminated_at: Option<usize>, truncated_at: Option<usize>) -> Vec<Transition> {
        let rewards = [1.0, 0.0, 2.0];
        let values = [0.5, 0.4, 0.3];
        let next_values = [0.4, 0.3, 0.9];
        (0..3)
            .map(|t| Transition {
                reward: rewards[t],
                value: values[t],
                next_value: next_values[t],
                terminated: terminated_at == Some(t),
                truncated: truncated_at == Some(t),
                discount: 0.9,
                lambda: 0.8,
            })
            .collect()
    }

    fn close(a: &[f32], b: &[f32]) {
        assert!(
            a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5),
            "{a:?} vs {b:?}"
        );
    }

    /// gamma = 0.9, lambda = 0.8, worked by hand:
    /// deltas: 1 + 0.9*0.4 - 0.5 = 0.86, 0 + 0.9*0.3 - 0.4 = -0.13, 2 + 0.9*0.9 - 0.3 = 2.51.
    #[test]
    fn gae_matches_a_hand_computed_example() {
        let (adv, ret) = gae(&steps(None, None));
        // A2 = 2.51; A1 = -0.13 + 0.72 * 2.51 = 1.6772; A0 = 0.86 + 0.72 * 1.6772 = 2.067584
        close(&adv, &[2.067584, 1.6772, 2.51]);
        close(&ret, &[2.567584, 2.0772, 2.81]);
    }

    #[test]
    fn termination_stops_bootstrap_and_the_chain() {
        // delta1 = 0 - 0.4 = -0.4 and A1 = -0.4; A0 = 0.86 + 0.72 * -0.4 = 0.572
        let (adv, _) = gae(&steps(Some(1), None));
        close(&adv, &[0.572, -0.4, 2.51]);
    }

    #[test]
    fn truncation_bootstraps_but_cuts_the_chain() {
        // delta1 = -0.13 and A1 = -0.13; A0 = 0.86 + 0.72 * -0.13 = 0.7664
        let (adv, _) = gae(&steps(None, Some(1)));
        close(&adv, &[0.7664, -0.13, 2.51]);
    }

    /// A same-time step (no time passes) is not discounted; the chain through it keeps
    /// lambda only: with gamma_1 = 1, delta1 = 0 + 0.3 - 0.4 = -0.1, A1 = -0.1 + 0.8 * 2.51
    /// = 1.908, A0 = 0.86 + 0.72 * 1.908 = 2.23376.
    #[test]
    fn time_sets_each_steps_discount() {
        assert_eq!(step_discount(0.9, 0.0, 1e6), 0.9);
        assert_eq!(step_discount(0.9, 3600.0, 0.0), 1.0);
        assert!((step_discount(0.9, 3600.0, 7200.0) - 0.81).abs() < 1e-6);
        let mut s = steps(None, None);
        s[1].discount = 1.0;
        let (adv, _) = gae(&s);
        close(&adv, &[2.23376, 1.908, 2.51]);
    }

    /// The shape of a jobs decision point (a semi-Markov chain): 64 same-time choices, then
    /// one timed step whose cost is -1, values 0. By hand, the timed step's own advantage is
    /// -1; with lambda per time the first choice receives it whole (gamma_t = lambda_t = 1
    /// across the same-time choices), with lambda per choice only 0.95^64 = 0.037 of it.
    #[test]
    fn lambda_per_time_carries_the_next_intervals_cost_to_a_decision_points_first_choice() {
        let (gamma, lambda, unit) = (0.99, 0.95, 3600.0);
        let chain = |per: LambdaPer| -> Vec<Transition> {
            (0..65)
                .map(|t| {
                    let elapsed = if t == 64 { unit } else { 0.0 };
                    Transition {
                        reward: if t == 64 { -1.0 } else { 0.0 },
                        value: 0.0,
                        next_value: 0.0,
                        terminated: t == 64,
                        truncated: false,
                        discount: step_discount(gamma, unit, elapsed),
                        lambda: step_lambda(lambda, per, unit, elapsed),
                    }
                })
                .collect()
        };
        let timed_alone = -1.0;
        for whole in [LambdaPer::Time, LambdaPer::Point] {
            let (advantages, _) = gae(&chain(whole));
            assert!(
                advantages[0] <= 0.9 * timed_alone,
                "{whole:?}: {}",
                advantages[0]
            );
        }
        let (per_choice, _) = gae(&chain(LambdaPer::Choice));
        assert!((per_choice[0] - 0.95f32.powi(64) * timed_alone).abs() < 1e-4);
        assert!(per_choice[0] > 0.1 * timed_alone, "{}", per_choice[0]);
        // without a time unit all count lambda per step; per point, a timed step of any length
        // carries lambda once
        assert_eq!(step_lambda(0.95, LambdaPer::Time, 0.0, 5.0), 0.95);
        assert_eq!(step_lambda(0.95, LambdaPer::Point, 0.0, 0.0), 0.95);
        assert_eq!(step_lambda(0.95, LambdaPer::Point, unit, 7.0 * unit), 0.95);
    }
}
