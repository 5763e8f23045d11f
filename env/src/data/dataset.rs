//! A dataset as models read it: features, labels and what the labels mean.

use super::Features;

/// What the labels mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Labels are class indices `0..classes` stored as `f32`.
    Classification {
        classes: usize,
    },
    Regression,
}

/// Features plus labels, ready for a model, with every row's squared norm (per-sample gradient
/// norms of linear layers need it on every step; computed once here).
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    pub features: Features,
    pub labels: Vec<f32>,
    pub task: Task,
    squared_norms: Vec<f32>,
}

impl Dataset {
    pub fn new(features: Features, labels: Vec<f32>, task: Task) -> Self {
        let squared_norms = (0..features.rows())
            .map(|i| features.row(i).squared_norm())
            .collect();
        Dataset {
            features,
            labels,
            task,
            squared_norms,
        }
    }

    /// `|x_i|^2` of row `i`.
    #[inline]
    pub fn squared_norm(&self, i: usize) -> f32 {
        self.squared_norms[i]
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    pub fn select(&self, idx: &[usize]) -> Dataset {
        Dataset {
            features: self.features.select(idx),
            labels: idx.iter().map(|&i| self.labels[i]).collect(),
            task: self.task,
            squared_norms: idx.iter().map(|&i| self.squared_norms[i]).collect(),
        }
    }
}
