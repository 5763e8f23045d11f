//! Opens plain or gzip-compressed text files by their extension.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::{EnvError, Result};

/// A buffered reader over the file, decompressing `.gz` transparently.
pub fn open_text(path: &Path) -> Result<Box<dyn Read + Send>> {
    let file = File::open(path).map_err(|e| EnvError::io(path, e))?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    Ok(if gz {
        Box::new(BufReader::new(MultiGzDecoder::new(BufReader::new(file))))
    } else {
        Box::new(BufReader::new(file))
    })
}
