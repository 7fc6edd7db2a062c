//! The table of trace formats: one row per format, holding its name, the file-name endings that
//! imply it, its reader and the reader's options (as `ParamSpec`s), and its writer if smrlab
//! writes it. Everything that opens, names or writes a trace goes through this table, so a new
//! format is its own file plus one row here.
//!
//! Not here: parsing or writing records (each format's own file), compression (`compress`).

use std::io::{BufRead, Write};
use std::path::Path;

use super::lines::LineRecords;
use super::{blkparse, blocks, csv, msr, smrbin, spc, split_compression, vscsi, TraceError, TraceReader};
use smr_core::params::Params;
use smr_core::request::Request;
use smr_core::ParamSpec;

/// Opens a byte stream (already decompressed) as a trace of the format; the path names it in
/// messages, and the reader takes its options from the bag (the caller refuses any left unread).
pub type ReadFn = fn(Box<dyn BufRead + Send>, &Path, &mut Params) -> Result<TraceReader, TraceError>;

/// Opens an uncompressed regular file of the format by memory map.
pub type MapFn = fn(&Path) -> Result<TraceReader, TraceError>;

/// How smrlab writes a format.
pub struct FormatWriter {
    /// Writes one request (blocks writes one line per 4 KiB block).
    pub record: fn(&mut dyn Write, &Request) -> std::io::Result<()>,
    /// Whether the format can spell a trim; a trim written to one that cannot is refused.
    pub trims: bool,
    /// Whether the file is smrbin's: a header first and, when it is an uncompressed regular file,
    /// the statistics of what was written at the end, with the request count patched in.
    pub smrbin_layout: bool,
}

/// One trace format.
pub struct FormatEntry {
    /// The name users give (any case).
    pub name: &'static str,
    /// The endings of a file name (after a compression suffix) that imply this format; no
    /// ending is the end of another format's.
    pub suffixes: &'static [&'static str],
    /// The reader's options, each read only through its declaration.
    pub options: &'static [ParamSpec],
    pub read: ReadFn,
    /// A faster reader of an uncompressed regular file, by memory map; it takes no options.
    pub map: Option<MapFn>,
    /// `None`: smrlab reads the format but does not write it.
    pub write: Option<FormatWriter>,
}

/// Every trace format, in the order messages and `--help` list them.
pub static FORMATS: &[FormatEntry] = &[
    FormatEntry {
        name: "msr",
        suffixes: &[".csv"],
        options: &[],
        read: |input, path, _| Ok(TraceReader::boxed(LineRecords::new(input, path.into(), msr::MsrParser::default()))),
        map: None,
        write: Some(FormatWriter { record: msr::write_line, trims: false, smrbin_layout: false }),
    },
    FormatEntry {
        name: "spc",
        suffixes: &[".spc"],
        options: spc::OPTIONS,
        read: spc::read,
        map: None,
        write: Some(FormatWriter { record: spc::write_line, trims: false, smrbin_layout: false }),
    },
    FormatEntry {
        name: "blkparse",
        suffixes: &[".blkparse", ".blktrace.txt"],
        options: blkparse::OPTIONS,
        read: blkparse::read,
        map: None,
        write: None,
    },
    FormatEntry {
        name: "vscsi",
        suffixes: &[".vscsi"],
        options: &[],
        read: |input, path, _| vscsi::open(input, path),
        map: None,
        write: None,
    },
    FormatEntry {
        name: "blocks",
        suffixes: &[".blocks"],
        options: &[],
        read: |input, path, _| Ok(TraceReader::boxed(LineRecords::new(input, path.into(), blocks::BlocksParser))),
        map: None,
        write: Some(FormatWriter { record: blocks::write_lines, trims: false, smrbin_layout: false }),
    },
    FormatEntry {
        name: "csv",
        suffixes: &[],
        options: csv::OPTIONS,
        read: csv::read,
        map: None,
        write: Some(FormatWriter { record: csv::write_line, trims: true, smrbin_layout: false }),
    },
    FormatEntry {
        name: "smrbin",
        suffixes: &[".smrbin"],
        options: &[],
        read: |input, path, _| smrbin::open_stream(input, path),
        map: Some(smrbin::open_mapped),
        write: Some(FormatWriter { record: smrbin::write_record, trims: true, smrbin_layout: true }),
    },
];

impl std::fmt::Debug for FormatEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Rows are compared by name: each is one format.
impl PartialEq for FormatEntry {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for FormatEntry {}

impl FormatEntry {
    /// Whether smrlab writes the format (it reads them all).
    pub fn writable(&self) -> bool {
        self.write.is_some()
    }

    fn known() -> String {
        FORMATS.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
    }

    /// The format called `name`.
    pub fn named(name: &str) -> Result<&'static Self, TraceError> {
        FORMATS
            .iter()
            .find(|f| f.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| TraceError::UnknownFormat { name: name.to_string(), known: Self::known() })
    }

    /// The format named by `name`, or else the one the file name implies (after removing a
    /// compression suffix), by the rows' suffixes.
    pub fn resolve(name: Option<&str>, path: &Path) -> Result<&'static Self, TraceError> {
        if let Some(name) = name {
            return Self::named(name);
        }
        let (_, stem) = split_compression(path);
        FORMATS.iter().find(|f| f.suffixes.iter().any(|s| stem.ends_with(s))).ok_or_else(|| TraceError::UnknownFormat {
            name: format!("{} (cannot tell from the file name; give the format)", path.display()),
            known: Self::known(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_suffixes_name_one_format_each() {
        for (i, a) in FORMATS.iter().enumerate() {
            for b in &FORMATS[i + 1..] {
                assert!(!a.name.eq_ignore_ascii_case(b.name), "two rows called {}", a.name);
            }
            for b in FORMATS {
                for (s, t) in a.suffixes.iter().flat_map(|s| b.suffixes.iter().map(move |t| (s, t))) {
                    assert!(
                        std::ptr::eq(a, b) && s == t || !t.ends_with(s),
                        "{t} ({}) ends with {s} ({}): detection would depend on the rows' order",
                        b.name,
                        a.name
                    );
                }
            }
        }
    }

    /// The endings the readers' documentation promises (a compression suffix after them
    /// removed), and the names, in any case.
    #[test]
    fn a_format_is_found_by_name_or_by_the_file_name() {
        let cases = [
            ("t.csv", "msr"),
            ("t.csv.gz", "msr"),
            ("t.spc", "spc"),
            ("t.blkparse.xz", "blkparse"),
            ("t.blktrace.txt", "blkparse"),
            ("t.blktrace.txt.bz2", "blkparse"),
            ("t.vscsi", "vscsi"),
            ("t.blocks.zst", "blocks"),
            ("t.smrbin", "smrbin"),
        ];
        for (file, name) in cases {
            assert_eq!(FormatEntry::resolve(None, Path::new(file)).map(|f| f.name).ok(), Some(name), "{file}");
        }
        assert_eq!(FormatEntry::resolve(Some("CSV"), Path::new("t.smrbin")).unwrap().name, "csv");
        let err = FormatEntry::resolve(None, Path::new("t.txt")).unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown trace format 't.txt (cannot tell from the file name; give the format)' \
             (known: msr, spc, blkparse, vscsi, blocks, csv, smrbin)"
        );
    }

    #[test]
    fn every_declared_default_is_a_value_of_its_kind() {
        for format in FORMATS {
            for spec in format.options.iter().filter(|spec| spec.default != smr_core::param_spec::REQUIRED) {
                assert_eq!(spec.check(spec.default), Ok(()), "{} option {}", format.name, spec.key);
            }
        }
    }
}
