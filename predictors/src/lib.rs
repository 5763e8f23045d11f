//! # schedlab-predictors
//!
//! Demand predictors behind one [`Predictor`] trait: fitted on usage series, they predict each
//! series' next step from its recent history. `lstm` (burn), and the baselines `last`,
//! `ewma` and `ar`, are rows of one table ([`PREDICTORS`]); [`score`] compares them on
//! held-out tails.
//!
//! It knows only numeric series: nothing of environments, schedulers, training loops or the
//! command line. Where series come from (env rollouts, traces) is the caller's business.

mod ar;
mod error;
mod ewma;
mod files;
mod last;
mod lstm;
mod predictor;
mod registry;
mod score;
mod series;

pub use ar::ArPredictor;
pub use error::{PredictorError, Result};
pub use ewma::EwmaPredictor;
pub use last::LastPredictor;
pub use lstm::{LstmConfig, LstmPredictor};
pub use predictor::Predictor;
pub use registry::{NAMES, PREDICTORS, PredictorRow, load, untrained};
pub use score::{Scores, head_len, heads, score};
pub use series::{Series, WINDOW};
