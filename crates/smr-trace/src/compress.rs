//! Opening trace files with transparent decompression (and compression on write) by suffix:
//! `.gz` (gzip), `.xz`, `.bz2`, `.zst`. Everything else is read as is.
//!
//! Not here: parsing; readers get a buffered byte stream and the file name without the
//! compression suffix (to detect the format).

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use super::TraceError;

/// A compression scheme recognised by file suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Xz,
    Bzip2,
    Zstd,
}

const SUFFIXES: [(&str, Compression); 4] =
    [(".gz", Compression::Gzip), (".xz", Compression::Xz), (".bz2", Compression::Bzip2), (".zst", Compression::Zstd)];

/// The compression of `path` and its name without the compression suffix.
pub fn split_compression(path: &Path) -> (Compression, String) {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for (suffix, kind) in SUFFIXES {
        if let Some(stem) = name.strip_suffix(suffix) {
            return (kind, stem.to_string());
        }
    }
    (Compression::None, name)
}

const BUFFER: usize = 1 << 20;

/// Opens `path` for reading; a folder is refused by name (the system would say "No such device"
/// or "Is a directory" only at the first read).
pub fn open_file(path: &Path) -> Result<File, TraceError> {
    let file = File::open(path).map_err(|e| TraceError::io(path, e))?;
    if file.metadata().map_err(|e| TraceError::io(path, e))?.is_dir() {
        return Err(TraceError::io(
            path,
            std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a folder, not a trace file"),
        ));
    }
    Ok(file)
}

/// Opens `path` for buffered reading, decompressing by suffix.
pub fn open_read(path: &Path) -> Result<Box<dyn BufRead + Send>, TraceError> {
    let file = open_file(path)?;
    let raw = BufReader::with_capacity(BUFFER, file);
    let (kind, _) = split_compression(path);
    Ok(match kind {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(BUFFER, flate2::bufread::MultiGzDecoder::new(raw))),
        Compression::Xz => Box::new(BufReader::with_capacity(BUFFER, xz2::bufread::XzDecoder::new_multi_decoder(raw))),
        Compression::Bzip2 => Box::new(BufReader::with_capacity(BUFFER, bzip2::bufread::MultiBzDecoder::new(raw))),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            BUFFER,
            zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| TraceError::io(path, e))?,
        )),
    })
}

/// Creates `path` for writing, compressing by suffix. The returned writer must be flushed and
/// dropped (or `finish`ed through `into_inner`) for the compressed stream to be complete.
pub fn create_write(path: &Path) -> Result<Box<dyn Write + Send>, TraceError> {
    let file = File::create(path).map_err(|e| TraceError::io(path, e))?;
    let raw = BufWriter::with_capacity(BUFFER, file);
    let (kind, _) = split_compression(path);
    Ok(match kind {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(flate2::write::GzEncoder::new(raw, flate2::Compression::default())),
        Compression::Xz => Box::new(xz2::write::XzEncoder::new(raw, 6)),
        Compression::Bzip2 => Box::new(bzip2::write::BzEncoder::new(raw, bzip2::Compression::default())),
        Compression::Zstd => {
            Box::new(zstd::stream::write::Encoder::new(raw, 3).map_err(|e| TraceError::io(path, e))?.auto_finish())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suffix_round_trips() {
        let dir = std::env::temp_dir().join(format!("smrlab-compress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in ["t.txt", "t.txt.gz", "t.txt.xz", "t.txt.bz2", "t.txt.zst"] {
            let path = dir.join(name);
            {
                let mut w = create_write(&path).unwrap();
                w.write_all(b"hello trace\n").unwrap();
                w.flush().unwrap();
            }
            let mut text = String::new();
            std::io::Read::read_to_string(&mut open_read(&path).unwrap(), &mut text).unwrap();
            assert_eq!(text, "hello trace\n", "{name}");
            assert_eq!(split_compression(&path).1, "t.txt");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_file_names_the_path() {
        let err = open_read(Path::new("/no/such/trace.csv")).err().unwrap();
        assert!(err.to_string().contains("/no/such/trace.csv"));
        let folder = std::env::temp_dir();
        let err = open_read(&folder).err().unwrap().to_string();
        assert!(err.contains("is a folder"), "{err}");
    }
}
