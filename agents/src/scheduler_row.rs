//! What a scheduler is to the registry ([`crate::registry`]): a name, the kinds of env it acts
//! in, its typed options and its constructor. A leaf: every scheduler file names its row with
//! these types, and the registry gathers the rows, so no scheduler imports the registry.

use crate::context::EnvContext;
use crate::options::{OptionSpec, Options, PolicyError};
use crate::policy::Policy;
use schedlab_env::EnvKind;

/// A scheduler's constructor: the env's context and the parsed options in, the policy out.
pub type BuildFn = fn(&EnvContext, &Options) -> Result<Box<dyn Policy>, PolicyError>;

/// One scheduler.
pub struct SchedulerRow {
    pub name: &'static str,
    pub kinds: &'static [EnvKind],
    /// One line for `schedlab policies`.
    pub help: &'static str,
    pub options: &'static [OptionSpec],
    pub build: BuildFn,
}
