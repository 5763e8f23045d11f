use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum PredictorError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    #[error("unknown predictor `{0}`; available: last, ewma, ar, lstm")]
    Unknown(String),
    /// Nothing or not enough to fit on, or series of different widths.
    #[error("cannot fit {predictor}: {message}")]
    Data {
        predictor: &'static str,
        message: String,
    },
}

pub type Result<T> = std::result::Result<T, PredictorError>;
