//! `kcomp._kcomp`: the native half of the Python package. Each function takes numpy arrays or
//! plain values, runs the same library code as the `kcomp` command line with the GIL released
//! (`Python::detach`), and returns the command's `--json` answer as text (the Python half,
//! `kcomp/__init__.py`, turns it into objects). Going through the CLI's own JSON keeps the
//! numbers bit-identical to `kcomp ... --json` on the same inputs.
//!
//! Errors: every `KcompError` becomes `kcomp.KcompError` (a `ValueError`) with the CLI's
//! one-line message; no function panics on bad input (each input is checked before use).

use std::path::{Path, PathBuf};

use clap::Parser;
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use kcomp::dataset::{Targets, TokenData};
use kcomp::io::user_data::{
    MAX_COLUMNS, Table, Values, check_table, targets_from_table, tokens_from_table,
};
use kcomp::io::w_input::{
    RaggedIds, WFormat, WInfo, WOptions, dense_tokens, tokens_from_sentences,
};
use pyo3::types::{PyList, PyString, PyTuple};

pyo3::create_exception!(
    kcomp,
    KcompError,
    PyValueError,
    "Bad input or a failed run: the one-line message of the kcomp command line."
);

/// The CLI's one-line message of an error.
fn to_py<E: std::fmt::Display>(err: E) -> PyErr {
    KcompError::new_err(format!("{err:#}").replace('\n', " "))
}

fn json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(to_py)
}

/// Rows and columns of a 1-D (one column) or 2-D array, as the file loaders read them.
fn rows_cols(shape: &[usize], name: &str) -> PyResult<(usize, usize)> {
    match shape.len() {
        1 => Ok((shape[0], 1)),
        2 => Ok((shape[0], shape[1])),
        d => Err(to_py(kcomp::KcompError::file(
            name,
            format!("expected a 1-D or 2-D array, found {d} dimensions {shape:?}"),
        ))),
    }
}

/// Copies a numpy array of `T` (any strides or order) into a row-major table, each value
/// through `convert`: the logical (C) order whatever the memory layout, so Fortran-order and
/// strided views read the same values as their C-contiguous copies.
fn table_of<T: numpy::Element + Copy, V>(
    a: &Bound<'_, PyArrayDyn<T>>,
    name: &str,
    convert: impl Fn(T) -> V,
    wrap: impl Fn(Vec<V>) -> Values,
) -> PyResult<Table> {
    let (rows, cols) = rows_cols(a.shape(), name)?;
    let ro = a.try_readonly().map_err(to_py)?;
    let values: Vec<V> = ro.as_array().iter().map(|&x| convert(x)).collect();
    let t = Table {
        rows,
        cols,
        values: wrap(values),
    };
    check_table(&t, Path::new(name)).map_err(to_py)?;
    Ok(t)
}

/// A numpy array of integers (any width, signed or not) or floats as a table; `name` ("W",
/// "Z") names it in errors, as the CLI names the file.
fn read_array(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Table> {
    macro_rules! ints {
        ($($t:ty),*) => {$(
            if let Ok(a) = obj.cast::<PyArrayDyn<$t>>() {
                return table_of(a, name, |x| x as i64, Values::Int);
            }
        )*};
    }
    ints!(i64, i32, i16, i8, u8, u16, u32, bool);
    if let Ok(a) = obj.cast::<PyArrayDyn<u64>>() {
        // As the .npy loader: values past i64 saturate (and are then refused as tokens).
        return table_of(a, name, |x| x.min(i64::MAX as u64) as i64, Values::Int);
    }
    if let Ok(a) = obj.cast::<PyArrayDyn<f64>>() {
        return table_of(a, name, |x| x, Values::Float);
    }
    if let Ok(a) = obj.cast::<PyArrayDyn<f32>>() {
        return table_of(a, name, |x| x as f64, Values::Float);
    }
    let dtype = obj
        .getattr("dtype")
        .map(|d| d.to_string())
        .unwrap_or_else(|_| "not an array".into());
    Err(to_py(kcomp::KcompError::file(
        name,
        format!("expected a numpy array of integers or floats, found dtype {dtype}"),
    )))
}

/// How W is read from Python: a tokeniser for sentences, the user's padding token.
#[derive(Default)]
struct WRead {
    tokeniser: Option<String>,
    keep_case: bool,
    pad: Option<i64>,
}

impl WRead {
    fn options(&self) -> PyResult<WOptions> {
        WOptions::from_flags(None, self.tokeniser.as_deref(), self.keep_case, self.pad)
            .map_err(to_py)
    }
}

/// W from Python: a numpy array of integer ids, a list of sentences (strings, cut by the
/// tokeniser), or a list of id lists of any lengths (padded with kcomp's own token), as the
/// CLI reads a .npy, a .txt or a ragged .jsonl file ("W" standing for the file name).
fn read_w(w: &Bound<'_, PyAny>, how: &WRead) -> PyResult<(TokenData, WInfo)> {
    let name = Path::new("W");
    let options = how.options()?;
    let is_list = w.cast::<PyList>().is_ok() || w.cast::<PyTuple>().is_ok();
    if is_list {
        let items: Vec<Bound<'_, PyAny>> = w.try_iter()?.collect::<PyResult<_>>()?;
        if items.first().is_some_and(|x| x.cast::<PyString>().is_ok()) {
            if options.pad.is_some() {
                return Err(to_py(kcomp::KcompError::param(
                    "pad",
                    "W holds sentences: kcomp pads them with its own token; pad names the \
                     padding token of integer W",
                )));
            }
            let sentences: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    x.extract::<String>().map_err(|_| {
                        to_py(kcomp::KcompError::file(
                            name,
                            format!("item {} is not a string (W is a list of sentences)", i + 1),
                        ))
                    })
                })
                .collect::<PyResult<_>>()?;
            let tokeniser = options.tokeniser.clone().unwrap_or_default();
            return tokens_from_sentences(&sentences, &tokeniser, name).map_err(to_py);
        }
        if options.tokeniser.is_some() {
            return Err(to_py(kcomp::KcompError::param(
                "tokeniser",
                "applies to sentences (a list of strings); W holds integer ids",
            )));
        }
        let mut offsets = vec![0usize];
        let mut values: Vec<i64> = Vec::new();
        for (i, row) in items.iter().enumerate() {
            let ids: Vec<i64> = if let Ok(v) = row.extract::<i64>() {
                vec![v]
            } else {
                row.extract::<Vec<i64>>().map_err(|_| {
                    to_py(kcomp::KcompError::file(
                        name,
                        format!("row {}: not a list of integer token ids", i + 1),
                    ))
                })?
            };
            if ids.len() > MAX_COLUMNS {
                return Err(to_py(kcomp::KcompError::file(
                    name,
                    format!(
                        "row {}: {} tokens, more than the {MAX_COLUMNS} kcomp reads",
                        i + 1,
                        ids.len()
                    ),
                )));
            }
            values.extend(ids);
            offsets.push(values.len());
        }
        return dense_tokens(
            name,
            RaggedIds { offsets, values },
            None,
            options.pad,
            WFormat::Jsonl,
        )
        .map_err(to_py);
    }
    if options.tokeniser.is_some() {
        return Err(to_py(kcomp::KcompError::param(
            "tokeniser",
            "applies to sentences (a list of strings); W is an array of integer ids",
        )));
    }
    let wt = read_array(w, "W")?;
    tokens_from_table(&wt, name, options.pad).map_err(to_py)
}

/// W and Z as the CLI reads them from files (same checks, same messages with "W"/"Z" for
/// the file names).
fn user_data(
    w: &Bound<'_, PyAny>,
    z: &Bound<'_, PyAny>,
    precision: Option<f64>,
    how: &WRead,
) -> PyResult<(TokenData, Targets, WInfo)> {
    let (tokens, info) = read_w(w, how)?;
    let zt = read_array(z, "Z")?;
    if tokens.n != zt.rows {
        return Err(to_py(kcomp::KcompError::file(
            "Z",
            format!("{} rows, but W has {} rows", zt.rows, tokens.n),
        )));
    }
    let targets = targets_from_table(&zt, Path::new("Z"), precision).map_err(to_py)?;
    Ok((tokens, targets, info))
}

/// The padded ids, the token of each id, the padding id and how W was read (JSON).
type Tokenised<'py> = (Bound<'py, PyAny>, Vec<String>, Option<u32>, String);

/// `kcomp.tokenise(sentences, tokeniser, keep_case)`: the padded id matrix (int64, N x L),
/// the token of each id, the padding id (or None) and how W was read (JSON).
#[pyfunction]
#[pyo3(signature = (w, tokeniser=None, keep_case=false, pad=None))]
fn tokenise<'py>(
    py: Python<'py>,
    w: &Bound<'py, PyAny>,
    tokeniser: Option<String>,
    keep_case: bool,
    pad: Option<i64>,
) -> PyResult<Tokenised<'py>> {
    let (tokens, info) = read_w(
        w,
        &WRead {
            tokeniser,
            keep_case,
            pad,
        },
    )?;
    let labels = match &info.labels {
        Some(l) => (0..l.len()).map(|k| l.label(k)).collect(),
        None => Vec::new(),
    };
    let json_info = json(&serde_json::json!({"input": info.summary(), "notes": info.notes()}))?;
    Ok((tokens_array(py, &tokens)?, labels, tokens.pad, json_info))
}

/// `kcomp compare --w W --z Z [--precision P] [--estimators ...] --json`; `topsim_json`
/// (a `[topsim]` table as JSON) replaces the default topological-similarity settings,
/// `bosdis_json` (a `[bosdis]` table) the bag-of-symbols settings.
#[pyfunction]
#[pyo3(signature = (w, z, precision=None, estimators=None, llm_report=None, topsim_json=None, bosdis_json=None, tokeniser=None, keep_case=false, pad=None, requential_json=None, bdm_json=None))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    w: &Bound<'_, PyAny>,
    z: &Bound<'_, PyAny>,
    precision: Option<f64>,
    estimators: Option<Vec<String>>,
    llm_report: Option<PathBuf>,
    topsim_json: Option<String>,
    bosdis_json: Option<String>,
    tokeniser: Option<String>,
    keep_case: bool,
    pad: Option<i64>,
    requential_json: Option<String>,
    bdm_json: Option<String>,
) -> PyResult<String> {
    use kcomp::panel::single::{SingleSettings, compare_one, single_config, user_dataset_read};
    let how = WRead {
        tokeniser,
        keep_case,
        pad,
    };
    let (w, z, info) = user_data(w, z, precision, &how)?;
    let settings = SingleSettings::load(None, &[]).map_err(to_py)?;
    let mut config = single_config(estimators, llm_report, settings).map_err(to_py)?;
    if let Some(text) = topsim_json {
        config.topsim = serde_json::from_str(&text)
            .map_err(|e| to_py(format!("invalid parameter `topsim`: {e}")))?;
    }
    if let Some(text) = bosdis_json {
        config.bosdis = serde_json::from_str(&text)
            .map_err(|e| to_py(format!("invalid parameter `bosdis`: {e}")))?;
    }
    if let Some(text) = requential_json {
        config.requential = serde_json::from_str(&text)
            .map_err(|e| to_py(format!("invalid parameter `requential`: {e}")))?;
        config.validate_estimators().map_err(to_py)?;
    }
    if let Some(text) = bdm_json {
        config.bdm = serde_json::from_str(&text)
            .map_err(|e| to_py(format!("invalid parameter `bdm`: {e}")))?;
    }
    py.detach(|| {
        let data = user_dataset_read(w, z, vec!["W".into(), "Z".into()], Some(&info))?;
        let bar = kcomp::progress::WorkBar::hidden();
        compare_one(&data, &config.estimators, &config, &bar)
    })
    .map_err(to_py)
    .and_then(|c| json(&c))
}

/// `kcomp bdm FILE --json` on an integer array of 1 or 2 axes (`ndim`: 1 reads it row after
/// row, 2 as a matrix; default: its own number of axes).
#[pyfunction]
#[pyo3(signature = (x, ndim=None, nsymbols=None, partition="ignore".to_string(), block=None, ctm=None))]
fn bdm(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    ndim: Option<usize>,
    nsymbols: Option<usize>,
    partition: String,
    block: Option<usize>,
    ctm: Option<PathBuf>,
) -> PyResult<String> {
    use kcomp::estimators::bdm::{Partition, bdm_of};
    let axes = x
        .getattr("ndim")
        .and_then(|n| n.extract::<usize>())
        .unwrap_or(1);
    let t = read_array(x, "x")?;
    let kcomp::io::user_data::Values::Int(values) = t.values else {
        return Err(to_py("x: BDM needs integer symbols"));
    };
    let shape = match ndim.unwrap_or(axes.clamp(1, 2)) {
        1 => vec![values.len()],
        2 => vec![t.rows, t.cols],
        _ => return Err(to_py("ndim: must be 1 or 2")),
    };
    let partition = Partition::parse(&partition).map_err(|e| to_py(format!("partition: {e}")))?;
    py.detach(|| bdm_of(&values, &shape, nsymbols, block, partition, ctm.as_deref()))
        .map_err(to_py)
        .and_then(|(r, table)| {
            let mut v = serde_json::to_value(&r).map_err(|e| to_py(e.to_string()))?;
            v["table"] = table.into();
            v["partition"] = partition.to_string().into();
            v["units"] = "bits".into();
            Ok(v.to_string())
        })
}

#[derive(Parser)]
#[command(name = "kcomp prequential", no_binary_name = true)]
struct PrequentialCli {
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    #[command(flatten)]
    flags:
        kcomp::config::ShortcutArgs<kcomp::estimators::prequential::run_config::PrequentialFlags>,
}

/// `kcomp prequential ARGS --json` (ARGS: the CLI's flags and `--set KEY=VALUE`): with arrays,
/// on them (as `--w W.npy --z Z.npy`); without, on the generated language system ARGS describe.
#[pyfunction]
#[pyo3(signature = (w, z, precision, args, tokeniser=None, keep_case=false))]
fn prequential(
    py: Python<'_>,
    w: Option<&Bound<'_, PyAny>>,
    z: Option<&Bound<'_, PyAny>>,
    precision: Option<f64>,
    args: Vec<String>,
    tokeniser: Option<String>,
    keep_case: bool,
) -> PyResult<String> {
    use kcomp::estimators::prequential::run_config::{resolve, write_outputs};
    let c = PrequentialCli::try_parse_from(&args).map_err(clap_line)?;
    // The padding token (--pad) names an id of the user's W: applied while W is read.
    let pad = resolve(None, &c.flags.given, &c.sets)
        .map_err(to_py)?
        .config
        .prequential
        .online
        .pad
        .map(i64::from);
    let how = WRead {
        tokeniser,
        keep_case,
        pad,
    };
    let data = match (w, z) {
        (Some(w), Some(z)) => Some(user_data(w, z, precision, &how)?),
        (None, None) => None,
        _ => {
            return Err(to_py(
                "give both W and Z, or neither (a generated language)",
            ));
        }
    };
    let value = py
        .detach(|| -> kcomp::Result<serde_json::Value> {
            let mut resolved = resolve(None, &c.flags.given, &c.sets)?;
            let mut w_info = None;
            let r = match data {
                None => resolved.single_run(false, None, false)?.run(false)?,
                Some((w, z, info)) => {
                    if let Some(key) = resolved
                        .overridden
                        .iter()
                        .find(|k| k.starts_with("language.") || k.starts_with("files."))
                    {
                        return Err(kcomp::KcompError::param(
                            key,
                            "does not apply to arrays W and Z",
                        ));
                    }
                    resolved.settle_val_size(w.n);
                    let cfg = &resolved.config;
                    kcomp::estimators::prequential::code::validate(&w, &z, &cfg.prequential)?;
                    let r = kcomp::estimators::prequential::language_compositionality(
                        &w,
                        &z,
                        &cfg.prequential,
                        None,
                    )?;
                    if let Some(dir) = &cfg.output.dir {
                        write_outputs(&r, cfg, dir)?;
                        if info.remapped || info.pad_source.is_some() {
                            kcomp::io::files::atomic_write(
                                &dir.join("w_vocabulary.csv"),
                                &info.vocabulary_csv(&w)?,
                            )?;
                        }
                    }
                    w_info = Some(info);
                    r
                }
            };
            let mut v = kcomp::estimators::prequential::report::to_json(&r);
            if let (Some(info), Some(obj)) = (w_info, v.as_object_mut()) {
                obj.insert("w_input".into(), info.summary());
                obj.insert("w_notes".into(), info.notes().into());
            }
            Ok(v)
        })
        .map_err(to_py)?;
    json(&value)
}

/// Arrays of a generated dataset: W (int64, N x M), Z (int64 attributes or float64 values)
/// and the JSON of its terms.
type Generated<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>, String);

fn int_matrix<'py>(py: Python<'py>, v: Vec<i64>, cols: usize) -> PyResult<Bound<'py, PyAny>> {
    let rows = v.len() / cols.max(1);
    Ok(PyArray1::from_vec(py, v).reshape([rows, cols])?.into_any())
}

fn float_matrix<'py>(py: Python<'py>, v: Vec<f64>, cols: usize) -> PyResult<Bound<'py, PyAny>> {
    let rows = v.len() / cols.max(1);
    Ok(PyArray1::from_vec(py, v).reshape([rows, cols])?.into_any())
}

fn tokens_array<'py>(py: Python<'py>, w: &TokenData) -> PyResult<Bound<'py, PyAny>> {
    int_matrix(py, w.tokens.iter().map(|&t| t as i64).collect(), w.n_words)
}

fn targets_array<'py>(py: Python<'py>, z: &Targets) -> PyResult<Bound<'py, PyAny>> {
    match z {
        Targets::Discrete { n_attr, values, .. } => {
            int_matrix(py, values.iter().map(|&v| v as i64).collect(), *n_attr)
        }
        Targets::Continuous { dim, lam, grid } => {
            float_matrix(py, grid.iter().map(|&k| k as f64 * lam).collect(), *dim)
        }
    }
}

#[derive(Parser)]
#[command(name = "kcomp synth lookup", no_binary_name = true)]
struct LookupCli {
    #[command(flatten)]
    params: kcomp::datasets::lookup_table::LookupParams,
    #[command(flatten)]
    topsim: kcomp::estimators::topsim::TopsimOptions,
}

#[derive(Parser)]
#[command(name = "kcomp synth grammar", no_binary_name = true)]
struct GrammarCli {
    #[command(flatten)]
    params: kcomp::datasets::grammar::GrammarParams,
    #[command(flatten)]
    topsim: kcomp::estimators::topsim::TopsimOptions,
}

#[derive(Parser)]
#[command(name = "kcomp synth protocol", no_binary_name = true)]
struct ProtocolCli {
    #[command(flatten)]
    params: kcomp::datasets::protocols::ProtocolParams,
}

/// clap's error as one line (as the CLI prints it).
fn clap_line(err: clap::Error) -> PyErr {
    let text = err.render().to_string();
    let line: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    to_py(line.join(" ").trim_start_matches("error: "))
}

/// `kcomp synth lookup|grammar ARGS --json`, with the generated W and Z (Z = grid x precision,
/// float64, as Z.npy of `--out`).
#[pyfunction]
fn synth<'py>(py: Python<'py>, kind: &str, args: Vec<String>) -> PyResult<Generated<'py>> {
    use kcomp::sweeps::run::SynthSpec;
    let (spec, topsim) = match kind {
        "lookup" => {
            let c = LookupCli::try_parse_from(&args).map_err(clap_line)?;
            (SynthSpec::Lookup(c.params), c.topsim)
        }
        "grammar" => {
            let c = GrammarCli::try_parse_from(&args).map_err(clap_line)?;
            (SynthSpec::Grammar(c.params), c.topsim)
        }
        other => return Err(to_py(format!("unknown generator {other:?}"))),
    };
    let outcome = py
        .detach(|| kcomp::sweeps::synth::synth(spec, &topsim, None, false))
        .map_err(to_py)?;
    let text = outcome.to_json().map_err(to_py)?;
    let d = outcome.data;
    let (m, dim) = (d.w.ncols(), d.z.ncols());
    let w = int_matrix(py, d.w.iter().copied().collect(), m)?;
    let z = float_matrix(
        py,
        d.z.iter().map(|&k| k as f64 * d.precision).collect(),
        dim,
    )?;
    Ok((w, z, text))
}

/// `kcomp synth protocol ARGS`: W, Z and the exact terms (bits) as JSON.
#[pyfunction]
fn protocol<'py>(py: Python<'py>, args: Vec<String>) -> PyResult<Generated<'py>> {
    let c = ProtocolCli::try_parse_from(&args).map_err(clap_line)?;
    let data = py.detach(|| c.params.dataset()).map_err(to_py)?;
    let terms = serde_json::json!({
        "kind": format!("{:?}", c.params.kind),
        "exact": data.exact,
        "k_z": data.k_z,
    });
    Ok((
        tokens_array(py, &data.w)?,
        targets_array(py, &data.z)?,
        json(&terms)?,
    ))
}

/// A generated language system (`[language]` of a prequential config, given as JSON): W, Z
/// and the indices of the holistic objects.
#[pyfunction]
fn language<'py>(py: Python<'py>, config_json: &str) -> PyResult<Generated<'py>> {
    use kcomp::datasets::language_system::LanguageSystemConfig;
    let cfg: LanguageSystemConfig = serde_json::from_str(config_json)
        .map_err(|e| to_py(format!("invalid language-system settings: {e}")))?;
    let ls = py.detach(|| cfg.generate()).map_err(to_py)?;
    let terms = serde_json::json!({
        "settings": cfg,
        "holistic_objects": ls.holistic_objects,
    });
    Ok((
        tokens_array(py, &ls.w)?,
        targets_array(py, &ls.z)?,
        json(&terms)?,
    ))
}

/// `kcomp grid score --dataset D --record I --answer (text) --json`.
#[pyfunction]
#[pyo3(signature = (answer, dataset, record, parser="reference".to_string(), timeout=5.0, allow_unsandboxed=false))]
fn grid_score(
    py: Python<'_>,
    answer: &str,
    dataset: PathBuf,
    record: usize,
    parser: String,
    timeout: f64,
    allow_unsandboxed: bool,
) -> PyResult<String> {
    let answer = answer.to_string();
    let scores = py
        .detach(|| -> kcomp::Result<_> {
            let dir = tempfile::tempdir()
                .map_err(|e| kcomp::KcompError::Other(format!("temporary folder: {e}")))?;
            let path = dir.path().join("answer.txt");
            std::fs::write(&path, answer).map_err(|e| kcomp::KcompError::io(&path, e))?;
            let args = kcomp::programs::mapping_table::args::ScoreArgs {
                dataset,
                record,
                answer: path,
                parser,
                json: true,
                timeout,
                allow_unsandboxed,
            };
            Ok(args.score()?.scores)
        })
        .map_err(to_py)?;
    json(&scores)
}

#[derive(Parser)]
#[command(name = "kcomp grid report", no_binary_name = true)]
struct ReportCli {
    #[command(flatten)]
    args: kcomp::programs::reports::args::ReportArgs,
}

/// `kcomp grid report ARGS`: writes the report files and returns its summary line.
#[pyfunction]
fn grid_report(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    let c = ReportCli::try_parse_from(&args).map_err(clap_line)?;
    py.detach(|| -> kcomp::Result<String> {
        let summary = kcomp::programs::reports::run_report(&c.args.options()?)?;
        Ok(summary.to_string())
    })
    .map_err(to_py)
}

/// `kcomp compare CONFIG.toml --out DIR`, the config as TOML text (`origin` names it in
/// errors) or as JSON text (a dict on the Python side).
#[pyfunction]
#[pyo3(signature = (text, origin, is_json, out, threads=0, resume=false))]
fn panel(
    py: Python<'_>,
    text: &str,
    origin: &str,
    is_json: bool,
    out: PathBuf,
    threads: usize,
    resume: bool,
) -> PyResult<String> {
    use kcomp::panel::config::PanelConfig;
    let toml_text = if is_json {
        let v: serde_json::Value = serde_json::from_str(text).map_err(to_py)?;
        toml::to_string(&v).map_err(|e| to_py(format!("{origin}: not a TOML table ({e})")))?
    } else {
        text.to_string()
    };
    py.detach(|| -> kcomp::Result<String> {
        let config = PanelConfig::from_toml(origin, &toml_text)?;
        let bar = indicatif_hidden(kcomp::panel::run::plan(&config)?.len() as u64);
        let (result, written) = kcomp::panel::run_and_report(&config, &out, threads, resume, &bar)?;
        let report = kcomp::panel::PanelReport::new(&config, &result, written);
        Ok(report.to_string())
    })
    .map_err(to_py)
}

/// A progress bar that draws nothing (Python callers read the result, not a terminal bar).
fn indicatif_hidden(len: u64) -> kcomp::progress::WorkBar {
    let bar = kcomp::progress::WorkBar::hidden();
    bar.set_length(len);
    bar
}

/// Topological similarity of W against meaning distances given as an N x N matrix (floats),
/// with the `[topsim]` settings `topsim_json`; returns `{"score", "convention", ...}` as JSON.
#[pyfunction]
#[pyo3(signature = (w, d, topsim_json=None))]
fn topsim_matrix(
    py: Python<'_>,
    w: &Bound<'_, PyAny>,
    d: &Bound<'_, PyAny>,
    topsim_json: Option<String>,
) -> PyResult<String> {
    use kcomp::estimators::topsim::TopsimConfig;
    use kcomp::estimators::topsim_convention::{DistanceMatrix, topological_similarity_matrix};
    let wt = read_array(w, "W")?;
    let (tokens, _) = tokens_from_table(&wt, Path::new("W"), None).map_err(to_py)?;
    let dt = read_array(d, "z_distances")?;
    if dt.rows != dt.cols {
        return Err(to_py(format!(
            "z_distances: a distance matrix must be N x N, found {} x {}",
            dt.rows, dt.cols
        )));
    }
    let values: Vec<f64> = match dt.values {
        Values::Int(v) => v.into_iter().map(|x| x as f64).collect(),
        Values::Float(v) => v,
    };
    let matrix = DistanceMatrix::new(dt.rows, values, "z_distances").map_err(to_py)?;
    let config: TopsimConfig = match topsim_json {
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| to_py(format!("invalid parameter `topsim`: {e}")))?,
        None => TopsimConfig::default(),
    };
    let rows: Vec<Vec<i64>> = (0..tokens.n)
        .map(|i| tokens.message(i).iter().map(|&t| i64::from(t)).collect())
        .collect();
    let score = py
        .detach(|| topological_similarity_matrix(&rows, &matrix, &config))
        .map_err(to_py)?;
    json(&serde_json::json!({
        "score": score,
        "convention": "custom",
        "correlation": config.correlation,
        "w_distance": config.w_distance,
        "z_distance": "matrix",
    }))
}

/// `kcomp prequential --overlay ... --figure FIGURE`: `runs_json` is a list of
/// `[label, result]` pairs (each result the object `kcomp prequential --json` prints).
#[pyfunction]
fn overlay(py: Python<'_>, runs_json: &str, figure: PathBuf, title: &str) -> PyResult<Vec<String>> {
    use kcomp::estimators::prequential::PrequentialResult;
    let runs: Vec<(String, PrequentialResult)> = serde_json::from_str(runs_json).map_err(|e| {
        to_py(format!(
            "overlay: not a list of (label, prequential result) ({e})"
        ))
    })?;
    let stem = figure.with_extension("");
    let written = py
        .detach(|| kcomp::estimators::prequential::report::write_overlay(&runs, &stem, title))
        .map_err(to_py)?;
    Ok(written.iter().map(|p| p.display().to_string()).collect())
}

#[pymodule]
fn _kcomp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("KcompError", m.py().get_type::<KcompError>())?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(prequential, m)?)?;
    m.add_function(wrap_pyfunction!(tokenise, m)?)?;
    m.add_function(wrap_pyfunction!(overlay, m)?)?;
    m.add_function(wrap_pyfunction!(synth, m)?)?;
    m.add_function(wrap_pyfunction!(protocol, m)?)?;
    m.add_function(wrap_pyfunction!(language, m)?)?;
    m.add_function(wrap_pyfunction!(grid_score, m)?)?;
    m.add_function(wrap_pyfunction!(grid_report, m)?)?;
    m.add_function(wrap_pyfunction!(panel, m)?)?;
    m.add_function(wrap_pyfunction!(bdm, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ESTIMATORS", kcomp::panel::registry::ESTIMATORS.to_vec())?;
    m.add("SCORES", kcomp::panel::registry::scores())?;
    m.add_function(wrap_pyfunction!(topsim_matrix, m)?)?;
    // (name, unit, direction, data it applies to) of every estimator: the units of tidy tables.
    let info: Vec<(&str, &str, &str, &str)> = kcomp::panel::registry::ESTIMATOR_INFO
        .iter()
        .map(|i| (i.name, i.unit, i.direction, i.applies_to))
        .collect();
    m.add("ESTIMATOR_INFO", info)?;
    // (flag, configuration key) of every `kcomp prequential` flag, so errors can name the
    // Python keyword instead of the flag or the key.
    let flags: Vec<(&str, &str)> = kcomp::estimators::prequential::run_config::SHORTCUTS
        .iter()
        .map(|s| (s.flag, s.key))
        .collect();
    m.add("PREQUENTIAL_FLAGS", flags)?;
    Ok(())
}
