//! TensorBoard event files through tensorboard-rs, plus the text summary it leaves
//! unimplemented (built from its protobuf types as TensorBoard's text plugin expects).

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use protobuf::RepeatedField;
use tensorboard_proto::summary::{
    Summary, Summary_Value, SummaryMetadata, SummaryMetadata_PluginData,
};
use tensorboard_proto::tensor::TensorProto;
use tensorboard_proto::tensor_shape::{TensorShapeProto, TensorShapeProto_Dim};
use tensorboard_proto::types::DataType;
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
