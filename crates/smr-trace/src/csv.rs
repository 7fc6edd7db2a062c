//! A generic delimited text trace with a column mapping given as options:
//! `time=COL op=COL offset=COL len=COL` (0-based column numbers; `time` may be omitted),
//! `time_unit=ns|us|ms|s|filetime` (default ns), `offset_unit` and `len_unit` =
//! `bytes|sectors|blocks` (512 B sectors, 4 KiB blocks; default bytes), `delimiter` (default `,`;
//! `tab` and `space` are spelled out), `header=true|false` (default false: skip no line),
//! `read=`, `write=` and `trim=` (comma-free `|`-separated spellings of the op column, defaults
//! `R|r|Read|read|READ`, `W|w|Write|write|WRITE` and `T|t|Trim|trim|TRIM`). Numeric op codes have
//! no default meaning: traces disagree on them (MSN and UMass write 1 for a read), so a trace
//! that codes ops as numbers must say which is which (`read=1 write=0`).
//!
//! Also the default writer layout: `time_ns,op,offset,len` with op `R`/`W`/`T`.

use std::io::BufRead;
use std::path::Path;

use super::lines::{
    field_f64, field_u64, request, scaled_bytes, scaled_ns, text, LineParser, LineRecords, RelativeClock,
};
use super::{TraceError, TraceReader};
use smr_core::param_spec::{NONE, REQUIRED};
use smr_core::params::{ParamError, Params};
use smr_core::quote::quote;
use smr_core::request::{Op, Request};
use smr_core::units::{BLOCK_4K, SECTOR};
use smr_core::{Kind, ParamReader, ParamSpec};

const COLUMN: Kind = Kind::Custom { unit: "a column number (0-based)" };
const TIME: ParamSpec = ParamSpec::new("time", COLUMN, NONE, "the time's column (none: every request at time 0)");
const OP: ParamSpec = ParamSpec::new("op", COLUMN, REQUIRED, "the op's column");
const OFFSET: ParamSpec = ParamSpec::new("offset", COLUMN, REQUIRED, "the offset's column");
const LEN: ParamSpec = ParamSpec::new("len", COLUMN, REQUIRED, "the length's column");
const TIME_UNIT: ParamSpec =
    ParamSpec::new("time_unit", Kind::Choice(&["ns", "us", "ms", "s", "filetime"]), "ns", "the time's unit");
const ADDRESS_UNITS: Kind = Kind::Choice(&["bytes", "sectors", "blocks"]);
const OFFSET_UNIT: ParamSpec =
    ParamSpec::new("offset_unit", ADDRESS_UNITS, "bytes", "the offset's unit (512 B sectors, 4 KiB blocks)");
const LEN_UNIT: ParamSpec =
    ParamSpec::new("len_unit", ADDRESS_UNITS, "bytes", "the length's unit (512 B sectors, 4 KiB blocks)");
const DELIMITER: ParamSpec =
    ParamSpec::new("delimiter", Kind::Custom { unit: "one character, or tab or space" }, ",", "the field separator");
const HEADER: ParamSpec = ParamSpec::new("header", Kind::Bool, "false", "whether the first line is a header to skip");
const SPELLINGS: Kind = Kind::Custom { unit: "|-separated words" };
const READ: ParamSpec = ParamSpec::new("read", SPELLINGS, "R|r|Read|read|READ", "the op column's spellings of a read");
const WRITE: ParamSpec =
    ParamSpec::new("write", SPELLINGS, "W|w|Write|write|WRITE", "the op column's spellings of a write");
const TRIM: ParamSpec = ParamSpec::new("trim", SPELLINGS, "T|t|Trim|trim|TRIM", "the op column's spellings of a trim");

/// The reader's options.
pub const OPTIONS: &[ParamSpec] =
    &[TIME, OP, OFFSET, LEN, TIME_UNIT, OFFSET_UNIT, LEN_UNIT, DELIMITER, HEADER, READ, WRITE, TRIM];

/// Reads a delimited trace from `input`, in the layout `write_line` writes unless the options
/// give the op's column.
pub fn read(input: Box<dyn BufRead + Send>, path: &Path, options: &mut Params) -> Result<TraceReader, TraceError> {
    if !options.contains(OP.key) {
        default_layout(options);
    }
    let parser = CsvParser::from_params(options).map_err(TraceError::option)?;
    Ok(TraceReader::boxed(LineRecords::new(input, path.to_path_buf(), parser)))
}

pub struct CsvParser {
    time: Option<usize>,
    op: usize,
    offset: usize,
    len: usize,
    time_scale_ns: f64,
    offset_scale: u64,
    len_scale: u64,
    delimiter: char,
    skip_header: bool,
    read: Vec<String>,
    write: Vec<String>,
    trim: Vec<String>,
    clock: RelativeClock,
}

fn unit_scale(options: &mut ParamReader, spec: &ParamSpec) -> Result<u64, ParamError> {
    Ok(match options.choice(spec)? {
        "sectors" => SECTOR,
        "blocks" => BLOCK_4K,
        _ => 1,
    })
}

fn column(options: &mut ParamReader, spec: &ParamSpec) -> Result<Option<usize>, ParamError> {
    if !options.given(spec) {
        return Ok(None);
    }
    let text = options.text(spec)?;
    let number = text
        .parse::<usize>()
        .map_err(|_| options.error(spec, format!("{} is not a column number (0-based)", quote(&text))))?;
    Ok(Some(number))
}

impl CsvParser {
    /// Reads the column mapping from `options`; `op`, `offset` and `len` are required.
    pub fn from_params(options: &mut Params) -> Result<Self, ParamError> {
        let options = &mut ParamReader::new(options, &[OPTIONS]);
        let required = |options: &mut ParamReader, spec: &ParamSpec| {
            column(options, spec)?.ok_or_else(|| {
                options.error(spec, "the csv format needs a column number for this field, e.g. --trace-option op=3")
            })
        };
        let op = required(options, &OP)?;
        let offset = required(options, &OFFSET)?;
        let len = required(options, &LEN)?;
        let time = column(options, &TIME)?;
        let time_scale_ns = match options.choice(&TIME_UNIT)? {
            "us" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "filetime" => 100.0,
            _ => 1.0,
        };
        let offset_scale = unit_scale(options, &OFFSET_UNIT)?;
        let len_scale = unit_scale(options, &LEN_UNIT)?;
        let delimiter = match options.text(&DELIMITER)?.as_str() {
            "tab" | "\\t" => '\t',
            "space" => ' ',
            d if d.chars().count() == 1 => d.chars().next().unwrap_or(','),
            d => return Err(options.error(&DELIMITER, format!("{} is not one character (or tab, space)", quote(d)))),
        };
        let skip_header = options.bool(&HEADER)?;
        let mut spellings = |spec: &ParamSpec| -> Result<Vec<String>, ParamError> {
            Ok(options.text(spec)?.split('|').map(str::to_string).collect())
        };
        let read = spellings(&READ)?;
        let write = spellings(&WRITE)?;
        let trim = spellings(&TRIM)?;
        Ok(CsvParser {
            time,
            op,
            offset,
            len,
            time_scale_ns,
            offset_scale,
            len_scale,
            delimiter,
            skip_header,
            read,
            write,
            trim,
            clock: RelativeClock::default(),
        })
    }
}

impl LineParser for CsvParser {
    fn parse(&mut self, line: &[u8]) -> Result<Option<Request>, String> {
        let line = text(line)?;
        if self.skip_header {
            self.skip_header = false;
            return Ok(None);
        }
        let fields: Vec<&str> = if self.delimiter == ' ' {
            line.split_whitespace().collect()
        } else {
            line.split(self.delimiter).collect()
        };
        let op_text = fields.get(self.op).ok_or_else(|| format!("missing field {} (op)", self.op + 1))?.trim();
        let op = if self.read.iter().any(|r| r == op_text) {
            Op::Read
        } else if self.write.iter().any(|w| w == op_text) {
            Op::Write
        } else if self.trim.iter().any(|t| t == op_text) {
            Op::Trim
        } else {
            return Err(format!(
                "op {} is none of the read ({}), write ({}) or trim ({}) spellings; a trace that codes ops as numbers must say which is which, e.g. --trace-option read=1 --trace-option write=0",
                quote(op_text), quote(self.read.join("|")), quote(self.write.join("|")), quote(self.trim.join("|"))
            ));
        };
        let offset = scaled_bytes(field_u64(&fields, self.offset, "offset")?, self.offset_scale, "offset")?;
        let len = scaled_bytes(field_u64(&fields, self.len, "len")?, self.len_scale, "len")?;
        let time_ns = match self.time {
            None => 0,
            Some(col) => self.clock.at(scaled_ns(field_f64(&fields, col, "time")?, self.time_scale_ns, "time")?),
        };
        request(time_ns, op, offset, len)
    }
}

/// Writes one request in the default layout `time_ns,op,offset,len`.
pub fn write_line(out: &mut dyn std::io::Write, req: &Request) -> std::io::Result<()> {
    writeln!(out, "{},{},{},{}", req.time_ns, req.op.letter(), req.offset, req.len)
}

/// The options that read back what `write_line` wrote.
pub fn default_layout(options: &mut Params) {
    for (spec, column) in [(TIME, "0"), (OP, "1"), (OFFSET, "2"), (LEN, "3")] {
        options.set_default(spec.key, column);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_units_and_spellings() {
        let mut o = Params::parse(&[
            "time=0",
            "op=1",
            "offset=2",
            "len=3",
            "time_unit=us",
            "offset_unit=sectors",
            "delimiter=tab",
            "header=true",
        ])
        .unwrap();
        let mut p = CsvParser::from_params(&mut o).unwrap();
        o.finish().unwrap();
        assert_eq!(p.parse(b"t\top\toff\tlen").unwrap(), None);
        assert_eq!(p.parse(b"10\tW\t8\t4096").unwrap().unwrap(), Request::new(0, Op::Write, 4096, 4096));
        assert_eq!(p.parse(b"15\tr\t0\t512").unwrap().unwrap(), Request::new(5_000, Op::Read, 0, 512));
        assert!(p.parse(b"16\tX\t0\t512").unwrap_err().contains("op 'X'"));
        assert!(p.parse(b"16\tW\t18014398509481984\t512").unwrap_err().contains("2^63"), "sectors times 512 past 2^63");
        assert!(p
            .parse(b"16\tW\t36028797018963968\t512")
            .unwrap_err()
            .contains("offset 36028797018963968 is out of range"));
    }

    #[test]
    fn missing_column_is_a_parameter_error() {
        let mut o = Params::parse(&["op=1", "offset=2"]).unwrap();
        assert_eq!(CsvParser::from_params(&mut o).err().unwrap().param, "len");
    }
}
