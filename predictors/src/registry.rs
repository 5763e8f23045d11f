//! Predictors as a table of rows: name, a line of help, an unfitted one with its defaults,
//! and how a fitted one is read back from its folder (`{name}.json`, plus `lstm.bpk` for the
//! LSTM). A new predictor is one file and one row.

use std::path::Path;

use crate::{
    ArPredictor, EwmaPredictor, LastPredictor, LstmConfig, LstmPredictor, Predictor,
    PredictorError, Result,
};

/// Reads a fitted predictor from its folder and its parsed `{name}.json`.
pub type LoadFn =
    fn(&Path, serde_json::Value) -> std::result::Result<Box<dyn Predictor>, LoadError>;

/// One predictor.
pub struct PredictorRow {
    pub name: &'static str,
    pub help: &'static str,
    pub untrained: fn() -> Box<dyn Predictor>,
    /// Serde errors come back as text and are reported with the file's path.
    pub load: LoadFn,
}

/// Why a saved predictor could not be read.
pub enum LoadError {
    /// The parameters do not fit the predictor.
    Format(String),
    Predictor(PredictorError),
}

fn params<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> std::result::Result<T, LoadError> {
    serde_json::from_value(value).map_err(|e| LoadError::Format(e.to_string()))
}

pub const PREDICTORS: [PredictorRow; 4] = [
    PredictorRow {
        name: "last",
        help: "the last observed step, unchanged",
        untrained: || Box::new(LastPredictor),
        load: |_, _| Ok(Box::new(LastPredictor)),
    },
    PredictorRow {
        name: "ewma",
        help: "exponentially weighted moving average of the window, smoothing fitted",
        untrained: || Box::new(EwmaPredictor::default()),
        load: |_, value| Ok(Box::new(params::<EwmaPredictor>(value)?)),
    },
    PredictorRow {
        name: "ar",
        help: "autoregression per feature on the last steps, least squares",
        untrained: || Box::new(ArPredictor::default()),
        load: |_, value| Ok(Box::new(params::<ArPredictor>(value)?)),
    },
    PredictorRow {
        name: "lstm",
        help: "LSTM over the recent window (burn), the reference paper's predictor",
        untrained: || Box::new(LstmPredictor::new(LstmConfig::new())),
        load: |dir, value| {
            Ok(Box::new(
                LstmPredictor::load(dir, value).map_err(LoadError::Predictor)?,
            ))
        },
    },
];

/// The names of [`PREDICTORS`], in table order.
pub const NAMES: [&str; PREDICTORS.len()] = {
    let mut names = [""; PREDICTORS.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = PREDICTORS[i].name;
        i += 1;
    }
    names
};

fn row(name: &str) -> Result<&'static PredictorRow> {
    PREDICTORS
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| PredictorError::Unknown(name.into()))
}

/// An unfitted predictor with its defaults.
pub fn untrained(name: &str) -> Result<Box<dyn Predictor>> {
    Ok((row(name)?.untrained)())
}

/// The fitted predictor `name` saved in `dir`.
pub fn load(dir: &Path, name: &str) -> Result<Box<dyn Predictor>> {
    let row = row(name)?;
    let path = dir.join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).map_err(|source| PredictorError::Io {
        path: path.clone(),
        source,
    })?;
    let format = |message: String| PredictorError::Format {
        path: path.clone(),
        message,
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format(e.to_string()))?;
    (row.load)(dir, value).map_err(|e| match e {
        LoadError::Format(message) => format(message),
        LoadError::Predictor(e) => e,
    })
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
