//! Real datasets: dense (CSV) and sparse (LIBSVM) features, labels, seeded split and
//! standardisation fitted on the training part only.

mod csv;
mod dataset;
mod features;
mod labels;
mod libsvm;
mod open;
mod prepare;

pub use self::csv::{NaPolicy, load_csv};
pub use dataset::{Dataset, Task};
pub use features::{Features, Row};
pub use labels::{LabelEncoding, RawLabels};
pub use libsvm::load_libsvm;
pub use open::{open_csv, open_text};
pub use prepare::{FeatureScaling, Prepared, prepare};

#[cfg(test)]
mod tests;
