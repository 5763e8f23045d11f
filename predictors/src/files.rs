//! Writing a predictor's files atomically (`schedlab_artifacts::atomic`): parameters as
//! `{name}.json`, networks as burn records.

use std::path::Path;

use burn::module::Module;
use schedlab_artifacts::{write_atomic, write_atomic_with};
use serde::Serialize;

use crate::{PredictorError, Result};

pub(crate) fn write_params(dir: &Path, name: &str, params: &impl Serialize) -> Result<()> {
    let path = dir.join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(params).expect("parameters serialise");
    write_atomic(&path, text.as_bytes()).map_err(|source| PredictorError::Io { path, source })
}

pub(crate) fn write_record(dir: &Path, file: &str, module: &impl Module) -> Result<()> {
    let path = dir.join(file);
    // burn's error or the file system's, shown the same way: the path and the message
    write_atomic_with(&path, |tmp| {
        module
            .clone()
            .save_file(tmp)
            .map_err(|e| std::io::Error::other(e.to_string()))
    })
    .map_err(|e| PredictorError::Format {
        path,
        message: e.to_string(),
    })
}
