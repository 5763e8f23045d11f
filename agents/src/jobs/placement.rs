//! The placement option every jobs scheduler but `random` takes.

use crate::options::{OptionSpec, OptionType};

/// Where a starting job's containers go; every jobs scheduler but `random` takes it.
pub const PLACEMENT: OptionSpec = OptionSpec {
    key: "placement",
    kind: OptionType::Choice(&["best-fit", "worst-fit"]),
    default: "best-fit",
    help: "machines for new containers: the fullest that fits, or the emptiest",
};
