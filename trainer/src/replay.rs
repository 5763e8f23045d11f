//! Experience replay: a fixed-capacity ring of transitions, flat in memory, sampled
//! uniformly with the trainer's seeded generator.

use rand::RngExt;
use rand::rngs::StdRng;

pub struct ReplayBuffer {
    capacity: usize,
    observation_len: usize,
    dims: usize,
    mask_len: usize,
    observations: Vec<f32>,
    actions: Vec<usize>,
    rewards: Vec<f32>,
    discounts: Vec<f32>,
    next_observations: Vec<f32>,
    next_masks: Vec<bool>,
    /// The episode ended in a terminal state (no bootstrap); a truncated one still bootstraps.
    terminals: Vec<bool>,
    len: usize,
    /// Slot the next transition goes to (the oldest once full).
    cursor: usize,
}

/// One stored transition, borrowed from the buffer.
pub struct Replayed<'a> {
    pub observation: &'a [f32],
    pub action: &'a [usize],
    pub reward: f32,
    /// The step's discount (`gamma`, or `gamma^(elapsed / time unit)`).
    pub discount: f32,
    pub next_observation: &'a [f32],
    pub next_mask: &'a [bool],
    pub terminal: bool,
}

impl ReplayBuffer {
    pub fn new(capacity: usize, observation_len: usize, dims: usize, mask_len: usize) -> Self {
        assert!(
            capacity > 0,
            "a replay buffer needs room for one transition"
        );
        ReplayBuffer {
            capacity,
            observation_len,
            dims,
            mask_len,
            observations: Vec::new(),
            actions: Vec::new(),
            rewards: Vec::new(),
            discounts: Vec::new(),
            next_observations: Vec::new(),
            next_masks: Vec::new(),
            terminals: Vec::new(),
            len: 0,
            cursor: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Stores a transition, overwriting the oldest when full.
    pub fn push(&mut self, transition: Replayed) {
        assert_eq!(transition.observation.len(), self.observation_len);
        assert_eq!(transition.next_observation.len(), self.observation_len);
        assert_eq!(transition.action.len(), self.dims);
        assert_eq!(transition.next_mask.len(), self.mask_len);
        if self.len < self.capacity {
            self.observations.extend_from_slice(transition.observation);
            self.actions.extend_from_slice(transition.action);
            self.rewards.push(transition.reward);
            self.discounts.push(transition.discount);
            self.next_observations
                .extend_from_slice(transition.next_observation);
            self.next_masks.extend_from_slice(transition.next_mask);
            self.terminals.push(transition.terminal);
            self.len += 1;
        } else {
            let k = self.cursor;
            let (o, a, m) = (self.observation_len, self.dims, self.mask_len);
            self.observations[k * o..(k + 1) * o].copy_from_slice(transition.observation);
            self.actions[k * a..(k + 1) * a].copy_from_slice(transition.action);
            self.rewards[k] = transition.reward;
            self.discounts[k] = transition.discount;
            self.next_observations[k * o..(k + 1) * o].copy_from_slice(transition.next_observation);
            self.next_masks[k * m..(k + 1) * m].copy_from_slice(transition.next_mask);
            self.terminals[k] = transition.terminal;
        }
        self.cursor = (self.cursor + 1) % self.capacity;
    }

    pub fn get(&self, k: usize) -> Replayed<'_> {
        let (o, a, m) = (self.observation_len, self.dims, self.mask_len);
        Replayed {
            observation: &self.observations[k * o..(k + 1) * o],
            action: &self.actions[k * a..(k + 1) * a],
            reward: self.rewards[k],
            discount: self.discounts[k],
            next_observation: &self.next_observations[k * o..(k + 1) * o],
            next_mask: &self.next_masks[k * m..(k + 1) * m],
            terminal: self.terminals[k],
        }
    }

    /// `count` indices drawn uniformly with replacement.
    pub fn sample(&self, count: usize, rng: &mut StdRng) -> Vec<usize> {
        assert!(!self.is_empty(), "sampling an empty replay buffer");
        (0..count).map(|_| rng.random_range(0..self.len)).collect()
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn push(buffer: &mut ReplayBuffer, tag: f32) {
        buffer.push(Replayed {
            observation: &[tag, tag],
            action: &[tag as usize],
            reward: tag,
            discount: 1.0 / (1.0 + tag),
            next_observation: &[tag + 0.5, tag + 0.5],
            next_mask: &[true, (tag as usize).is_multiple_of(2)],
            terminal: (tag as usize).is_multiple_of(3),
        });
    }

    #[test]
    fn a_full_buffer_overwrites_its_oldest_transitions_and_keeps_each_whole() {
        let mut buffer = ReplayBuffer::new(3, 2, 1, 2);
        for tag in 0..5 {
            push(&mut buffer, tag as f32);
        }
        assert_eq!(buffer.len(), 3);
        let mut rewards: Vec<f32> = (0..3).map(|k| buffer.get(k).reward).collect();
        rewards.sort_by(f32::total_cmp);
        assert_eq!(rewards, vec![2.0, 3.0, 4.0], "0 and 1 were overwritten");
        for k in 0..3 {
            let t = buffer.get(k);
            let tag = t.reward;
            assert_eq!(t.observation, &[tag, tag]);
            assert_eq!(t.action, &[tag as usize]);
            assert_eq!(t.next_observation, &[tag + 0.5, tag + 0.5]);
            assert_eq!(t.next_mask, &[true, (tag as usize).is_multiple_of(2)]);
            assert_eq!(t.terminal, (tag as usize).is_multiple_of(3));
            assert_eq!(t.discount, 1.0 / (1.0 + tag));
        }
    }

    #[test]
    fn sampling_stays_inside_the_filled_part_and_repeats_with_the_seed() {
        let mut buffer = ReplayBuffer::new(100, 2, 1, 2);
        for tag in 0..7 {
            push(&mut buffer, tag as f32);
        }
        let draw = |seed| buffer.sample(500, &mut StdRng::seed_from_u64(seed));
        let indices = draw(1);
        assert!(indices.iter().all(|&k| k < 7));
        assert_eq!((0..7).filter(|k| indices.contains(k)).count(), 7);
        assert_eq!(indices, draw(1));
        assert_ne!(indices, draw(2));
    }
}
