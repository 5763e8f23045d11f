//! Predictors by name, and their files: `{name}.json` (parameters) in a folder, plus
//! `lstm.bpk` (the network) for the LSTM. Files are written atomically.

use std::path::{Path, PathBuf};

use burn::module::Module;
use serde::Serialize;

use crate::{
    ArPredictor, EwmaPredictor, LastPredictor, LstmConfig, LstmPredictor, Predictor,
    PredictorError, Result,
};

pub const NAMES: [&str; 4] = ["last", "ewma", "ar", "lstm"];

/// An unfitted predictor with its defaults.
pub fn untrained(name: &str) -> Result<Box<dyn Predictor>> {
    Ok(match name {
        "last" => Box::new(LastPredictor),
        "ewma" => Box::new(EwmaPredictor::default()),
        "ar" => Box::new(ArPredictor::default()),
        "lstm" => Box::new(LstmPredictor::new(LstmConfig::new())),
        other => return Err(PredictorError::Unknown(other.into())),
    })
}

/// The fitted predictor `name` saved in `dir`.
pub fn load(dir: &Path, name: &str) -> Result<Box<dyn Predictor>> {
    let path = dir.join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).map_err(|source| PredictorError::Io {
        path: path.clone(),
        source,
    })?;
    let format = |message: String| PredictorError::Format {
        path: path.clone(),
        message,
    };
    let params: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format(e.to_string()))?;
    Ok(match name {
        "last" => Box::new(LastPredictor),
        "ewma" => Box::new(
            serde_json::from_value::<EwmaPredictor>(params).map_err(|e| format(e.to_string()))?,
        ),
        "ar" => Box::new(
            serde_json::from_value::<ArPredictor>(params).map_err(|e| format(e.to_string()))?,
        ),
        "lstm" => Box::new(LstmPredictor::load(dir, params)?),
        other => return Err(PredictorError::Unknown(other.into())),
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Series;

    fn wave(k: usize) -> Series {
        let values = (0..40)
            .flat_map(|t| {
                let x = (t + k) as f32 * 0.7;
                [0.5 + 0.3 * x.sin(), 0.4 + 0.2 * x.cos()]
            })
            .collect();
        Series::new(format!("wave {k}"), 2, values)
    }

    #[test]
    fn every_predictor_round_trips_through_save_and_load() {
        let series: Vec<Series> = (0..3).map(wave).collect();
        let dir = tempfile::tempdir().unwrap();
        let probe = wave(7);
        let history = probe.history_before(25);
        for name in NAMES {
            let mut predictor = if name == "lstm" {
                Box::new(LstmPredictor::new(LstmConfig::new().with_epochs(3)))
            } else {
                untrained(name).unwrap()
            };
            predictor.fit(&series).unwrap();
            predictor.save(dir.path()).unwrap();
            let loaded = load(dir.path(), name).unwrap();
            assert_eq!(loaded.name(), name);
            assert_eq!(
                loaded.predict(history, 2),
                predictor.predict(history, 2),
                "{name} predicts the same after loading"
            );
        }
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.contains(".tmp")), "{names:?}");
    }

    #[test]
    fn unknown_names_and_corrupt_files_are_refused_by_name() {
        assert!(untrained("oracle").is_err());
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("ewma.json"),
            "{\"alpha\": 0.3, \"beta\": 1}",
        )
        .unwrap();
        let err = load(dir.path(), "ewma").err().unwrap().to_string();
        assert!(err.contains("ewma.json") && err.contains("beta"), "{err}");
        let err = load(dir.path(), "ar").err().unwrap().to_string();
        assert!(err.contains("ar.json"), "{err}");
    }
}
