//! Writing a predictor's files atomically: parameters as `{name}.json`, networks as burn
//! records.

use std::path::{Path, PathBuf};

use burn::module::Module;
use serde::Serialize;

use crate::{PredictorError, Result};

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PredictorError + '_ {
    move |source| PredictorError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A sibling temporary file, renamed over the target once complete.
fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp{}", std::process::id()));
    path.with_file_name(name)
}

pub(crate) fn write_params(dir: &Path, name: &str, params: &impl Serialize) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(params).expect("parameters serialise");
    let tmp = temporary(&path);
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}

pub(crate) fn write_record(dir: &Path, file: &str, module: &impl Module) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(file);
    let tmp = temporary(&path);
    module
        .clone()
        .save_file(&tmp)
        .map_err(|e| PredictorError::Format {
            path: tmp.clone(),
            message: e.to_string(),
        })?;
    std::fs::rename(&tmp, &path).map_err(io(&path))
}
