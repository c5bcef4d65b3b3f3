//! `kcomp bdm`: the Block Decomposition Method of a string or a binary matrix.

use std::path::PathBuf;

use clap::Args;

use crate::estimators::bdm::{Partition, bdm_of};
use crate::io::user_data::{Values, check_table, read_table};

/// BDM (Zenil et al.'s Block Decomposition Method) of a string or a binary matrix, with
/// pybdm's conventions, on the CTM tables of a pybdm installation (not shipped with kcomp:
/// `pip install pybdm`, then --ctm or KCOMP_PYBDM_CTM names its folder). Bits.
///
/// Examples:
///   export KCOMP_PYBDM_CTM="$(python -c 'import pybdm, os; print(os.path.dirname(pybdm.__file__))')"
///   kcomp bdm --string 010101010101010101010101010101010101      28.5757 bits
///   kcomp bdm --string 1111111111 --partition recursive           22.7842 bits
///   kcomp bdm matrix.npy --ndim 2 --json
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct BdmArgs {
    /// Integer array (.npy, .csv, .jsonl): with --ndim 1 its values row after row, with
    /// --ndim 2 the matrix.
    #[arg(value_name = "FILE", required_unless_present = "string")]
    pub file: Option<PathBuf>,
    /// The string itself, one digit per symbol (instead of a file).
    #[arg(long, conflicts_with = "file")]
    pub string: Option<String>,
    /// 1 (strings) or 2 (binary matrices, 4x4 blocks).
    #[arg(long, default_value_t = 1)]
    pub ndim: usize,
    /// Alphabet size: 2, 4, 5, 6 or 9 (default: the smallest that holds the symbols).
    #[arg(long)]
    pub nsymbols: Option<usize>,
    /// Boundary handling: ignore (pybdm's default), correlated[:SHIFT], recursive[:MIN_LENGTH].
    #[arg(long, default_value = "ignore")]
    pub partition: String,
    /// Block side (default: the table's, 12 for strings and 4 for matrices).
    #[arg(long)]
    pub block: Option<usize>,
    /// pybdm's package folder or its ctmdata folder (default: KCOMP_PYBDM_CTM).
    #[arg(long, value_name = "DIR")]
    pub ctm: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `kcomp bdm`.
pub fn run(args: BdmArgs) -> anyhow::Result<()> {
    let partition = Partition::parse(&args.partition)
        .map_err(|e| crate::error::KcompError::param("partition", e))?;
    let (values, shape) = match (&args.string, &args.file) {
        (Some(s), _) => {
            let v: Vec<i64> = s
                .chars()
                .map(|c| c.to_digit(10).map(i64::from))
                .collect::<Option<_>>()
                .ok_or_else(|| crate::error::KcompError::param("string", "digits only"))?;
            let n = v.len();
            (v, vec![n])
        }
        (None, Some(path)) => {
            let t = read_table(path)?;
            check_table(&t, path)?;
            let Values::Int(v) = t.values else {
                return Err(
                    crate::error::KcompError::file(path, "BDM needs integer symbols").into(),
                );
            };
            let shape = match args.ndim {
                1 => vec![v.len()],
                2 => vec![t.rows, t.cols],
                _ => {
                    return Err(crate::error::KcompError::param("ndim", "must be 1 or 2").into());
                }
            };
            (v, shape)
        }
        (None, None) => {
            return Err(crate::error::KcompError::param("file", "give FILE or --string").into());
        }
    };
    if args.string.is_some() && args.ndim != 1 {
        return Err(crate::error::KcompError::param("ndim", "--string is 1-D").into());
    }
    let (r, table) = bdm_of(
        &values,
        &shape,
        args.nsymbols,
        args.block,
        partition,
        args.ctm.as_deref(),
    )?;
    if args.json {
        let mut v = serde_json::to_value(&r)?;
        v["table"] = table.into();
        v["partition"] = partition.to_string().into();
        v["units"] = "bits".into();
        outln!("{v}");
    } else {
        outln!(
            "BDM {:.6} bits ({table}, {partition}, {} blocks, {} distinct)",
            r.bits,
            r.blocks,
            r.distinct_blocks
        );
        for w in &r.warnings {
            noteln!("warning: {w}");
        }
    }
    Ok(())
}
