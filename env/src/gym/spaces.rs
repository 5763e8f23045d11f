//! Declared observation and action spaces, neutral about what an env simulates, so that agents
//! read shapes, offsets and labels from them instead of computing indices by hand.

use std::fmt;

/// One named choice made at every unit of an [`ActionSpace`] (a node's CPU level, a window
/// slot's workers level, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    /// Levels including 0.
    pub choices: usize,
}

impl Field {
    pub const fn new(name: &'static str, choices: usize) -> Self {
        Field { name, choices }
    }
}

/// Multi-discrete (gym's `MultiDiscrete`), laid out as a grid: for each unit (node-major,
/// slot-major, ...) one dimension per field. Dimension `d` is unit `d / fields` and field
/// `d % fields`; its label reads `node 3 / gpu`. The flat action mask concatenates each
/// dimension's levels in dimension order. An env with one decision has one unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionSpace {
    unit: &'static str,
    units: usize,
    fields: Vec<Field>,
    /// Where each dimension's levels start in the mask, plus the mask's length at the end.
    offsets: Vec<usize>,
}

impl ActionSpace {
    /// `units` copies of `fields`, each unit called `unit` in labels and errors.
    pub fn grid(unit: &'static str, units: usize, fields: Vec<Field>) -> Self {
        assert!(
            fields.iter().all(|f| f.choices > 0),
            "every field has a choice"
        );
        let mut offsets = Vec::with_capacity(units * fields.len() + 1);
        let mut next = 0;
        for _ in 0..units {
            for field in &fields {
                offsets.push(next);
                next += field.choices;
            }
        }
        offsets.push(next);
        ActionSpace {
            unit,
            units,
            fields,
            offsets,
        }
    }

    /// What a unit is (`node`, `slot`).
    pub fn unit_name(&self) -> &'static str {
        self.unit
    }
    /// Number of units.
    pub fn units(&self) -> usize {
        self.units
    }
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }
    /// Levels of field `field` (the same at every unit).
    pub fn field_choices(&self, field: usize) -> usize {
        self.fields[field].choices
    }
    /// Number of discrete dimensions (units x fields).
    pub fn dims(&self) -> usize {
        self.units * self.fields.len()
    }
    /// The dimension of `field` at `unit`.
    pub fn dim(&self, unit: usize, field: usize) -> usize {
        debug_assert!(unit < self.units && field < self.fields.len());
        unit * self.fields.len() + field
    }
    pub fn unit_of(&self, dim: usize) -> usize {
        dim / self.fields.len()
    }
    pub fn field_of(&self, dim: usize) -> usize {
        dim % self.fields.len()
    }
    /// Levels of dimension `dim`.
    pub fn choices(&self, dim: usize) -> usize {
        self.fields[self.field_of(dim)].choices
    }
    /// Choices of each dimension, gym's `nvec`.
    pub fn nvec(&self) -> Vec<usize> {
        (0..self.dims()).map(|d| self.choices(d)).collect()
    }
    /// `node 3 / gpu`.
    pub fn label(&self, dim: usize) -> String {
        format!(
            "{} {} / {}",
            self.unit,
            self.unit_of(dim),
            self.fields[self.field_of(dim)].name
        )
    }
    /// Length of the flat mask: the sum of `nvec`.
    pub fn mask_len(&self) -> usize {
        self.offsets[self.dims()]
    }
    /// Where dimension `dim`'s levels start in the flat mask.
    pub fn mask_offset(&self, dim: usize) -> usize {
        self.offsets[dim]
    }
    /// The mask's entries of dimension `dim`.
    pub fn mask_range(&self, dim: usize) -> std::ops::Range<usize> {
        self.offsets[dim]..self.offsets[dim + 1]
    }

    /// Refuses an action of the wrong length, a level that does not exist, or one the mask
    /// excludes (the first such dimension).
    pub fn check(&self, action: &[usize], mask: &[bool]) -> Result<(), ActionError> {
        if action.len() != self.dims() {
            return Err(ActionError::Length {
                got: action.len(),
                expected: self.dims(),
                unit: self.unit,
                per_unit: self.fields.len(),
            });
        }
        for (dim, &level) in action.iter().enumerate() {
            let choices = self.choices(dim);
            if level >= choices {
                return Err(ActionError::OutOfRange {
                    dim,
                    label: self.label(dim),
                    level,
                    choices,
                });
            }
            if !mask[self.mask_offset(dim) + level] {
                return Err(ActionError::Masked {
                    dim,
                    label: self.label(dim),
                    level,
                });
            }
        }
        Ok(())
    }
}

/// Why [`ActionSpace::check`] refused an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionError {
    Length {
        got: usize,
        expected: usize,
        unit: &'static str,
        per_unit: usize,
    },
    OutOfRange {
        dim: usize,
        label: String,
        level: usize,
        choices: usize,
    },
    Masked {
        dim: usize,
        label: String,
        level: usize,
    },
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionError::Length {
                got,
                expected,
                unit,
                per_unit,
            } => write!(
                f,
                "{got} entries, the action space has {expected} ({per_unit} per {unit})"
            ),
            ActionError::OutOfRange {
                label,
                level,
                choices,
                ..
            } => write!(f, "{label} level {level}: only levels 0..{choices} exist"),
            ActionError::Masked { label, level, .. } => {
                write!(f, "{label} level {level} is masked")
            }
        }
    }
}

/// A named run of features in the flat observation: `count` blocks of `width` features from
/// `offset` (one block per node, per window slot, or a single block for the whole cluster).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureGroup {
    pub name: &'static str,
    pub count: usize,
    pub width: usize,
    pub offset: usize,
}

impl FeatureGroup {
    /// Block `index` of this group in `features`.
    pub fn block<'a>(&self, features: &'a [f32], index: usize) -> &'a [f32] {
        debug_assert!(index < self.count);
        let start = self.offset + index * self.width;
        &features[start..start + self.width]
    }
    pub fn len(&self) -> usize {
        self.count * self.width
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The observation is a flat `f32` vector: its feature groups one after another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservationSpace {
    groups: Vec<FeatureGroup>,
    /// Later groups holding one block per block of the first (a jobs window slot's model
    /// speeds): a per-unit network reads them with the unit's own block.
    unit_groups: Vec<&'static str>,
}

impl ObservationSpace {
    /// Groups in order, each as `(name, count, width)`.
    pub fn new(groups: &[(&'static str, usize, usize)]) -> Self {
        let mut offset = 0;
        let groups = groups
            .iter()
            .map(|&(name, count, width)| {
                let group = FeatureGroup {
                    name,
                    count,
                    width,
                    offset,
                };
                offset += count * width;
                group
            })
            .collect();
        ObservationSpace {
            groups,
            unit_groups: Vec::new(),
        }
    }

    /// Declares the groups `names` as one block per unit of the first group, each as many
    /// blocks as it has.
    pub fn with_unit_groups(mut self, names: &[&'static str]) -> Self {
        let units = self.groups.first().map_or(0, |g| g.count);
        for name in names {
            let count = self.group(name).count;
            assert_eq!(count, units, "group `{name}` has one block per unit");
        }
        self.unit_groups = names.to_vec();
        self
    }

    /// The first group, then the groups declared with [`Self::with_unit_groups`].
    pub fn unit_groups(&self) -> Vec<&FeatureGroup> {
        let named = self.unit_groups.iter().map(|name| self.group(name));
        self.groups.first().into_iter().chain(named).collect()
    }

    /// The observation's columns unit by unit (each unit's block of every unit group, in
    /// order), then every other column in order: what a per-unit network reads.
    pub fn unit_major_columns(&self) -> Vec<usize> {
        let unit_groups = self.unit_groups();
        let units = unit_groups.first().map_or(0, |g| g.count);
        let mut columns = Vec::with_capacity(self.len());
        for unit in 0..units {
            for g in &unit_groups {
                columns.extend(g.offset + unit * g.width..g.offset + (unit + 1) * g.width);
            }
        }
        for g in self.groups.iter().filter(|g| !unit_groups.contains(g)) {
            columns.extend(g.offset..g.offset + g.len());
        }
        columns
    }

    pub fn groups(&self) -> &[FeatureGroup] {
        &self.groups
    }

    /// The group called `name`; panics on a name the env does not declare (a programming
    /// error in the agent, not bad input).
    pub fn group(&self, name: &str) -> &FeatureGroup {
        self.groups
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| {
                panic!(
                    "no feature group `{name}` in this observation space ({:?})",
                    self.groups.iter().map(|g| g.name).collect::<Vec<_>>()
                )
            })
    }

    pub fn len(&self) -> usize {
        self.groups.iter().map(FeatureGroup::len).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A flat observation with its action mask: `mask[mask_offset(d) + level]` says whether that
/// level of dimension `d` is allowed now.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Observation {
    pub features: Vec<f32>,
    pub action_mask: Vec<bool>,
}

impl Observation {
    /// State `index` of `states` as a one-hot vector (the tabular tasks' observation), with
    /// `action_mask`.
    pub fn one_hot(states: usize, index: usize, action_mask: Vec<bool>) -> Self {
        let mut features = vec![0.0f32; states];
        features[index] = 1.0;
        Observation {
            features,
            action_mask,
        }
    }

    /// The allowed levels of one dimension as a mask slice.
    pub fn mask_of(&self, space: &ActionSpace, dim: usize) -> &[bool] {
        &self.action_mask[space.mask_range(dim)]
    }

    /// The allowed levels of one dimension.
    pub fn allowed(&self, space: &ActionSpace, dim: usize) -> Vec<usize> {
        let mask = self.mask_of(space, dim);
        (0..mask.len()).filter(|&l| mask[l]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> ActionSpace {
        ActionSpace::grid(
            "node",
            3,
            vec![
                Field::new("cpu", 5),
                Field::new("mem", 4),
                Field::new("gpu", 2),
            ],
        )
    }

    #[test]
    fn mask_offsets_tile_the_mask_exactly() {
        let space = space();
        let mut next = 0;
        for d in 0..space.dims() {
            assert_eq!(space.mask_offset(d), next);
            assert_eq!(space.dim(space.unit_of(d), space.field_of(d)), d);
            next += space.choices(d);
        }
        assert_eq!(next, space.mask_len());
        assert_eq!(space.nvec(), vec![5, 4, 2, 5, 4, 2, 5, 4, 2]);
        assert_eq!(space.label(5), "node 1 / gpu");
    }

    #[test]
    fn check_names_the_dimension_the_level_and_why() {
        let space = space();
        let mut mask = vec![true; space.mask_len()];
        mask[space.mask_offset(space.dim(2, 1)) + 3] = false;
        assert_eq!(space.check(&[0; 9], &mask), Ok(()));
        let err = space.check(&[0; 8], &mask).unwrap_err().to_string();
        assert_eq!(err, "8 entries, the action space has 9 (3 per node)");
        let err = space
            .check(&[0, 0, 2, 0, 0, 0, 0, 0, 0], &mask)
            .unwrap_err()
            .to_string();
        assert_eq!(err, "node 0 / gpu level 2: only levels 0..2 exist");
        let err = space
            .check(&[0, 0, 0, 0, 0, 0, 0, 3, 0], &mask)
            .unwrap_err();
        assert_eq!(
            err,
            ActionError::Masked {
                dim: 7,
                label: "node 2 / mem".into(),
                level: 3
            }
        );
    }

    #[test]
    fn feature_groups_follow_each_other() {
        let space = ObservationSpace::new(&[("node", 3, 4), ("job", 1, 2)]);
        assert_eq!(space.unit_major_columns(), (0..14).collect::<Vec<_>>());
        assert_eq!(space.len(), 14);
        let features: Vec<f32> = (0..14).map(|i| i as f32).collect();
        assert_eq!(
            space.group("node").block(&features, 2),
            &[8.0, 9.0, 10.0, 11.0]
        );
        assert_eq!(space.group("job").block(&features, 0), &[12.0, 13.0]);
    }

    #[test]
    fn unit_groups_put_each_units_blocks_together() {
        // two slots of 2 features, a cluster block of 1, one speed per slot
        let space = ObservationSpace::new(&[("slot", 2, 2), ("cluster", 1, 1), ("speed", 2, 1)])
            .with_unit_groups(&["speed"]);
        assert_eq!(space.unit_groups().len(), 2);
        assert_eq!(space.unit_major_columns(), vec![0, 1, 5, 2, 3, 6, 4]);
    }
}
