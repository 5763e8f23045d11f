//! Messages between a real run's server and its workers over loopback TCP: a JSON header and
//! a vector of `f32` (parameters or a gradient), each behind its little-endian `u32` length.

use std::io::{Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Bounds on what one message may announce, so a corrupt length cannot ask for gigabytes.
const MAX_HEADER_BYTES: usize = 64 << 20;
const MAX_FLOATS: usize = 1 << 28;

/// Writes one message.
pub fn send(
    stream: &mut impl Write,
    header: &impl Serialize,
    floats: &[f32],
) -> std::io::Result<()> {
    let header = serde_json::to_vec(header).map_err(std::io::Error::other)?;
    let mut buffer = Vec::with_capacity(8 + header.len() + 4 * floats.len());
    buffer.extend_from_slice(&(header.len() as u32).to_le_bytes());
    buffer.extend_from_slice(&header);
    buffer.extend_from_slice(&(floats.len() as u32).to_le_bytes());
    for f in floats {
        buffer.extend_from_slice(&f.to_le_bytes());
    }
    stream.write_all(&buffer)?;
    stream.flush()
}

/// Reads one message.
pub fn receive<T: DeserializeOwned>(stream: &mut impl Read) -> std::io::Result<(T, Vec<f32>)> {
    let header_len = read_len(stream, MAX_HEADER_BYTES, "header")?;
    let mut header = vec![0u8; header_len];
    stream.read_exact(&mut header)?;
    let header = serde_json::from_slice(&header).map_err(std::io::Error::other)?;
    let count = read_len(stream, MAX_FLOATS, "vector")?;
    let mut bytes = vec![0u8; 4 * count];
    stream.read_exact(&mut bytes)?;
    let floats = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok((header, floats))
}

fn read_len(stream: &mut impl Read, max: usize, what: &str) -> std::io::Result<usize> {
    let mut bytes = [0u8; 4];
    stream.read_exact(&mut bytes)?;
    let len = u32::from_le_bytes(bytes) as usize;
    if len > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a message's {what} announces {len}, above the bound {max}"),
        ));
    }
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_round_trips_and_a_huge_length_is_refused() {
        let mut buffer = Vec::new();
        send(
            &mut buffer,
            &("pull", 7u64),
            &[1.5, -2.0, f32::MIN_POSITIVE],
        )
        .unwrap();
        let (header, floats): ((String, u64), Vec<f32>) = receive(&mut buffer.as_slice()).unwrap();
        assert_eq!(header, ("pull".to_owned(), 7));
        assert_eq!(floats, vec![1.5, -2.0, f32::MIN_POSITIVE]);
        let huge = u32::MAX.to_le_bytes();
        let err = receive::<u64>(&mut huge.as_slice()).unwrap_err();
        assert!(err.to_string().contains("above the bound"), "{err}");
    }
}
