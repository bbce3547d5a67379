//! LZ4 blocks through lz4_flex's block API, into buffers of our own: its
//! allocating helpers need its `alloc` feature, which would rebuild
//! tantivy with it. Bucket frames (`frame.rs`) and a large site's parsed
//! pages (`crates/site/src/page_codec.rs`) are both stored this way.

use std::io;

/// Appends `content` to `out` as one LZ4 block.
pub fn compress(content: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let start = out.len();
    out.resize(
        start + lz4_flex::block::get_maximum_output_size(content.len()),
        0,
    );
    let n = lz4_flex::block::compress_into(content, &mut out[start..]).map_err(io::Error::other)?;
    out.truncate(start + n);
    Ok(())
}

/// The `len` bytes that the LZ4 block `block` holds, or an error if it
/// holds anything else. LZ4 expands a block at most 255 times, so a
/// damaged length is refused before it allocates gigabytes.
pub fn decompress(block: &[u8], len: usize) -> io::Result<Vec<u8>> {
    let invalid = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    if len > block.len().saturating_mul(255) {
        return Err(invalid(format!(
            "content length {len} past what an LZ4 block of {} bytes can hold",
            block.len()
        )));
    }
    let mut content = vec![0; len];
    let n = lz4_flex::block::decompress_into(block, &mut content)
        .map_err(|e| invalid(e.to_string()))?;
    if n != len {
        return Err(invalid(
            "LZ4 block shorter than its content length".to_string(),
        ));
    }
    Ok(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_holds_its_content_and_nothing_else() {
        let content = b"<p>one</p><p>one</p><p>one</p><p>two</p>".repeat(50);
        let mut out = b"head".to_vec();
        compress(&content, &mut out).unwrap();
        assert_eq!(&out[..4], b"head");
        let block = &out[4..];
        assert!(block.len() < content.len() / 4);
        assert_eq!(decompress(block, content.len()).unwrap(), content);
        assert!(decompress(block, content.len() - 1).is_err());
        assert!(decompress(block, content.len() + 1).is_err());
        assert!(decompress(&block[..block.len() / 2], content.len()).is_err());
        // A length no block of this size can hold allocates nothing.
        let err = decompress(block, usize::MAX).unwrap_err();
        assert!(err.to_string().contains("past what"), "{err}");
    }
}
