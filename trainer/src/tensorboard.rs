//! TensorBoard event files through tensorboard-rs, plus the text summary it leaves
//! unimplemented (built from its protobuf types as TensorBoard's text plugin expects), and a
//! reader of the scalars back (TFRecord framing, checksums verified).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use protobuf::RepeatedField;
use tensorboard_proto::event::Event;
use tensorboard_proto::summary::{
    Summary, Summary_Value, SummaryMetadata, SummaryMetadata_PluginData,
};
use tensorboard_proto::tensor::TensorProto;
use tensorboard_proto::tensor_shape::{TensorShapeProto, TensorShapeProto_Dim};
use tensorboard_proto::types::DataType;
use tensorboard_rs::masked_crc32c::masked_crc32c;
use tensorboard_rs::summary::scalar;
use tensorboard_rs::summary_writer::FileWriter;

/// One event file in a run directory. Events go through a writer thread: drop the value
/// before the process ends so they reach the disk.
pub struct TensorBoard {
    writer: FileWriter,
}

impl TensorBoard {
    pub fn create(dir: &Path) -> Self {
        wait_for_a_fresh_file_name(dir);
        TensorBoard {
            writer: FileWriter::new(dir),
        }
    }

    pub fn scalar(&mut self, tag: &str, value: f32, step: u64) {
        self.writer.add_summary(scalar(tag, value), step as usize);
    }

    /// A Markdown text entry (TensorBoard's Text tab).
    pub fn text(&mut self, tag: &str, markdown: &str, step: u64) {
        let mut plugin = SummaryMetadata_PluginData::new();
        plugin.set_plugin_name("text".to_owned());
        let mut metadata = SummaryMetadata::new();
        metadata.set_plugin_data(plugin);
        let mut dim = TensorShapeProto_Dim::new();
        dim.set_size(1);
        let mut shape = TensorShapeProto::new();
        shape.set_dim(RepeatedField::from_vec(vec![dim]));
        let mut tensor = TensorProto::new();
        tensor.set_dtype(DataType::DT_STRING);
        tensor.set_tensor_shape(shape);
        tensor.set_string_val(RepeatedField::from_vec(vec![markdown.as_bytes().to_vec()]));
        let mut value = Summary_Value::new();
        value.set_tag(tag.to_owned());
        value.set_metadata(metadata);
        value.set_tensor(tensor);
        let mut summary = Summary::new();
        summary.set_value(RepeatedField::from_vec(vec![value]));
        self.writer.add_summary(summary, step as usize);
    }

    pub fn flush(&mut self) {
        self.writer.flush();
    }
}

/// tensorboard-rs names its file after the second, host and process and truncates an existing
/// one: a second writer of this process in the same second (a resume right after a run) would
/// erase the first's events, so wait for the next second then.
fn wait_for_a_fresh_file_name(dir: &Path) {
    let taken = |second: u64| {
        let (stamp, pid) = (
            format!("events.out.tfevents.{second:010}."),
            format!(".{}.", std::process::id()),
        );
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with(&stamp) && name.contains(&pid)
            })
    };
    let now = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default()
    };
    while taken(now()) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: no TensorBoard event file (events.out.tfevents.*)")]
    NoEvents { path: PathBuf },
    #[error("{path}, byte {offset}: {what}")]
    Corrupt {
        path: PathBuf,
        offset: usize,
        what: String,
    },
}

/// The scalar curves of a run folder.
#[derive(Debug, Default)]
pub struct Scalars {
    /// `(step, value)` per tag, in the order written.
    pub by_tag: BTreeMap<String, Vec<(u64, f64)>>,
    /// Event files whose last record was cut short (a writer killed mid-record); the whole
    /// records before the cut are kept.
    pub torn_files: Vec<PathBuf>,
}

/// Reads every event file of `dir`, oldest first (their names start with the creation
/// second), so a resumed run's curves continue its first file's.
pub fn read_scalars(dir: &Path) -> Result<Scalars, EventsError> {
    let io = |source| EventsError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("events.out.tfevents."))
        })
        .collect();
    if files.is_empty() {
        return Err(EventsError::NoEvents {
            path: dir.to_owned(),
        });
    }
    files.sort();
    let mut scalars = Scalars::default();
    for file in files {
        let bytes = std::fs::read(&file).map_err(|source| EventsError::Io {
            path: file.clone(),
            source,
        })?;
        let torn = read_records(&file, &bytes, |event| {
            for value in event.get_summary().get_value() {
                if value.has_simple_value() {
                    scalars
                        .by_tag
                        .entry(value.get_tag().to_owned())
                        .or_default()
                        .push((
                            event.get_step().max(0) as u64,
                            value.get_simple_value() as f64,
                        ));
                }
            }
        })?;
        if torn {
            scalars.torn_files.push(file);
        }
    }
    Ok(scalars)
}

/// Walks the TFRecord framing (length, its masked CRC-32C, data, the data's masked CRC-32C),
/// handing each event to `on_event`. Returns whether the file ends inside a record.
fn read_records(
    path: &Path,
    bytes: &[u8],
    mut on_event: impl FnMut(&Event),
) -> Result<bool, EventsError> {
    let corrupt = |offset, what: &str| EventsError::Corrupt {
        path: path.to_owned(),
        offset,
        what: what.to_owned(),
    };
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let mut at = 0;
    while at < bytes.len() {
        if bytes.len() - at < 12 {
            return Ok(true);
        }
        let header = &bytes[at..at + 8];
        if masked_crc32c(header) != word(at + 8) {
            return Err(corrupt(at, "record length fails its checksum"));
        }
        let len = u64::from_le_bytes(header.try_into().expect("8 bytes")) as usize;
        let data = at + 12;
        if bytes.len() - data < len.saturating_add(4) {
            return Ok(true);
        }
        if masked_crc32c(&bytes[data..data + len]) != word(data + len) {
            return Err(corrupt(at, "record data fails its checksum"));
        }
        let event = <Event as protobuf::Message>::parse_from_bytes(&bytes[data..data + len])
            .map_err(|e| corrupt(at, &format!("not an Event: {e}")))?;
        on_event(&event);
        at = data + len + 4;
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_read_back_as_written_and_a_torn_tail_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mut tb = TensorBoard::create(dir.path());
        tb.text("hyperparameters", "| lr | 0.1 |", 0);
        for step in 0..5u64 {
            tb.scalar("charts/episodic_return", -(step as f32) * 0.5, step * 10);
        }
        // the last record: the one a cut tears
        tb.scalar("losses/td_loss", 0.25, 7);
        tb.flush();
        drop(tb);
        let read = read_scalars(dir.path()).unwrap();
        assert_eq!(
            read.by_tag["charts/episodic_return"],
            (0..5)
                .map(|s| (s * 10, -(s as f64) * 0.5))
                .collect::<Vec<_>>()
        );
        assert_eq!(read.by_tag["losses/td_loss"], vec![(7, 0.25)]);
        assert!(
            !read.by_tag.contains_key("hyperparameters"),
            "text is not a scalar"
        );
        assert!(read.torn_files.is_empty());

        // a writer killed mid-record: the whole records before the cut survive
        let file = std::fs::read_dir(dir.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() - 3]).unwrap();
        let read = read_scalars(dir.path()).unwrap();
        assert_eq!(read.torn_files, vec![file.clone()]);
        assert_eq!(read.by_tag["charts/episodic_return"].len(), 5);
        assert!(!read.by_tag.contains_key("losses/td_loss"));

        // a flipped byte inside a record is an error naming the file
        let mut flipped = bytes.clone();
        let k = bytes.len() - 10;
        flipped[k] ^= 0xff;
        std::fs::write(&file, &flipped).unwrap();
        let err = read_scalars(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("checksum") && err.contains("events.out"),
            "{err}"
        );
    }

    #[test]
    fn a_folder_without_event_files_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_scalars(dir.path()).unwrap_err().to_string();
        assert!(err.contains("no TensorBoard event file"), "{err}");
    }
}
