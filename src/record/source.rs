//! Source coordinates of an input record.

/// Where an input record came from: a Kafka topic, partition and offset, or for local files the
/// file's path as `topic`, partition 0 and the 1-based line number (or file index) as `offset`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Source {
    /// Topic name, or the input file's path.
    pub topic: String,
    /// Partition (0 for local files).
    pub partition: i32,
    /// Offset in the partition, or line number in the file.
    pub offset: i64,
}

impl Source {
    /// The coordinates of line `line` (1-based) of a local file.
    pub fn line(file: &str, line: u64) -> Source {
        Source {
            topic: file.to_owned(),
            partition: 0,
            offset: line as i64,
        }
    }
}
