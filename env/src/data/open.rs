//! Opens plain or gzip-compressed text files by their extension.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::error::{EnvError, Result};
use crate::limits;

/// A buffered reader over the file, decompressing `.gz` transparently. Reading fails once
/// the text passes a quarter of the memory budget ([`limits::memory_limit`]): everything
/// read this way is held in memory, parsed, at a few times its size.
pub fn open_text(path: &Path) -> Result<Box<dyn Read + Send>> {
    let file = File::open(path).map_err(|e| EnvError::io(path, e))?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    let text: Box<dyn Read + Send> = if gz {
        Box::new(MultiGzDecoder::new(BufReader::new(file)))
    } else {
        Box::new(file)
    };
    let limit = limits::memory_limit() / 4;
    Ok(Box::new(BufReader::new(Capped {
        text,
        left: limit,
        limit,
    })))
}

/// A CSV file with a header row, opened through [`open_text`], and its header; an unreadable
/// header is an error naming line 1.
pub fn open_csv(path: &Path) -> Result<(csv::Reader<Box<dyn Read + Send>>, csv::StringRecord)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(open_text(path)?);
    let header = reader
        .headers()
        .map_err(|e| EnvError::parse(path, 1, "header", e.to_string()))?
        .clone();
    Ok((reader, header))
}

/// A reader that fails, instead of going on, after `limit` bytes.
struct Capped {
    text: Box<dyn Read + Send>,
    left: u64,
    limit: u64,
}

impl Read for Capped {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = buf
            .len()
            .min(usize::try_from(self.left.saturating_add(1)).unwrap_or(usize::MAX));
        let n = self.text.read(&mut buf[..room])?;
        if n as u64 > self.left {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the text is longer than {}, a quarter of the memory limit (raise it with \
                     --memory-limit-gb or SCHEDLAB_MEMORY_LIMIT_GB)",
                    limits::show_bytes(self.limit)
                ),
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_reader_fails_past_its_limit_and_not_at_it() {
        let read_all = |text: &'static [u8], limit: u64| {
            let mut capped = Capped {
                text: Box::new(text),
                left: limit,
                limit,
            };
            let mut out = Vec::new();
            capped.read_to_end(&mut out).map(|_| out.len())
        };
        assert_eq!(read_all(b"12345", 5).unwrap(), 5);
        let error = read_all(b"123456", 5).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        assert!(error.to_string().contains("longer than"), "{error}");
    }
}
