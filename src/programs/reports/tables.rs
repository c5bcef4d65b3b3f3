//! The tables `grid report` writes (serde rows through `csv::Writer::serialize`), report.md,
//! and the published layout.

use super::{Cell, Row, cells, layout, mannwhitney, mean_std, plots};
use crate::datasets::string_grid::Setting;
use crate::error::Result;
use crate::programs::mapping_table::score::{EVALUATOR_FIELDS, LOW_ERRORS, LOW_TABLE_FACTOR};
use serde::Serialize;
use std::path::Path;

fn fmt(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        String::new()
    }
}

/// Names in the tables are data: every text cell is made formula-safe and the file is
/// written atomically ([`crate::io::table::write_csv`]).
fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    crate::io::table::write_csv(path, rows)
}

/// A name read from the answer tree as a Markdown table cell.
fn md_name(name: &str) -> String {
    crate::io::names::markdown_cell(name)
}

/// A row of per_answer.csv: the evaluator's fields of the selected parser, kcomp's own
/// (L(P+), E(P), C(P) under the names `compare --llm-report` reads), and the other parser's
/// and the stored C(P) for comparison.
#[derive(Serialize)]
struct AnswerRow<'a> {
    model: &'a str,
    setting: &'a str,
    record: usize,
    status: &'a str,
    c_dict_n: usize,
    c_dict_m: usize,
    c_block_n: usize,
    c_block_m: usize,
    c_n: usize,
    c_m: usize,
    c_length: usize,
    c_error: usize,
    c: usize,
    norm_c: String,
    log_norm_c: String,
    in_acc: String,
    #[serde(rename = "L(P+) [entries]")]
    l_p_plus: usize,
    #[serde(rename = "E(P) [samples]")]
    errors: usize,
    #[serde(rename = "C(P) [0-100]")]
    c_p: String,
    profile: &'a str,
    /// When the reference's clip floor or ceiling set n or m.
    clip: String,
    parser: &'a str,
    reference_norm_c: String,
    robust_norm_c: String,
    stored_norm_c: String,
    result_correct: Option<bool>,
    dataset: &'a str,
    /// The scored program's description length in bits (`mapping_table::lbits`).
    l_bits: String,
    /// Bits of live literals outside the robust parser's table.
    unaccounted_bits: String,
    /// The robust parser's hidden-data verdict (empty when none).
    hidden_data: String,
}

/// A row of summary.csv.
#[derive(Serialize)]
struct SummaryRow<'a> {
    model: &'a str,
    setting: &'a str,
    answers: usize,
    scored: usize,
    failed: usize,
    empty: usize,
    unscorable: usize,
    #[serde(rename = "mean L(P+) [entries]")]
    l_mean: String,
    #[serde(rename = "std L(P+) [entries]")]
    l_std: String,
    #[serde(rename = "mean E(P) [samples]")]
    e_mean: String,
    #[serde(rename = "std E(P) [samples]")]
    e_std: String,
    #[serde(rename = "mean C(P) [0-100]")]
    c_mean: String,
    #[serde(rename = "std C(P) [0-100]")]
    c_std: String,
    #[serde(rename = "mean log_norm_c [0-100]")]
    log_c_mean: String,
    #[serde(rename = "mean in_acc [%]")]
    in_acc_mean: String,
    #[serde(rename = "result answers")]
    result_answers: usize,
    #[serde(rename = "result accuracy [%]")]
    result_acc: String,
    dataset: &'a str,
}

/// A row of table3.csv: the result-generation accuracy beside C(P).
#[derive(Serialize)]
struct Table3Row<'a> {
    model: &'a str,
    setting: &'a str,
    #[serde(rename = "result accuracy A [%]")]
    accuracy: String,
    #[serde(rename = "result answers")]
    answers: usize,
    #[serde(rename = "mean C(P) [0-100]")]
    c_mean: String,
}

#[derive(Serialize)]
struct GroupRow<'a> {
    setting: &'a str,
    metric: &'a str,
    group: usize,
    model: &'a str,
    mean: String,
}

/// A field on which two scorings of one answer differ.
#[derive(Serialize)]
struct DiffRow<'a> {
    model: &'a str,
    dataset: &'a str,
    record: usize,
    field: &'a str,
    left: String,
    right: String,
}

/// Counts of the differences tables.
#[derive(Debug, Clone, Copy, Default)]
pub struct Differences {
    /// Answers whose reference and robust scores differ.
    pub parser_answers: usize,
    /// Answers whose stored `_info.json` differs from kcomp's reference scores.
    pub stored_mismatches: usize,
}

fn num(v: &serde_json::Value) -> Option<f64> {
    v.as_f64()
}

/// Equal as the evaluator's numbers: exactly, or within 1e-9 for floats printed by Python.
fn same(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(1.0)
}

fn diff_rows<'a>(rows: &'a [Row]) -> (Vec<DiffRow<'a>>, Vec<DiffRow<'a>>, Differences) {
    let (mut parsers, mut stored) = (Vec::new(), Vec::new());
    let mut d = Differences::default();
    for r in rows.iter().filter(|r| r.has_rule_answer) {
        let mk = |field: &'a str, left: String, right: String| DiffRow {
            model: &r.model,
            dataset: &r.dataset,
            record: r.record,
            field,
            left,
            right,
        };
        let before = parsers.len();
        for f in EVALUATOR_FIELDS {
            let (a, b) = (r.reference.field(f), r.robust.field(f));
            if let (Some(a), Some(b)) = (a, b)
                && !same(a, b)
            {
                parsers.push(mk(f, a.to_string(), b.to_string()));
            }
        }
        d.parser_answers += usize::from(parsers.len() > before);
        if let Some(info) = &r.stored {
            let before = stored.len();
            for f in EVALUATOR_FIELDS {
                let kc = r.reference.field(f);
                let st = info.get(f).and_then(num);
                let differs = match (st, kc) {
                    (Some(a), Some(b)) => !same(a, b),
                    _ => true,
                };
                if differs {
                    let show = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
                    stored.push(mk(f, show(st), show(kc)));
                }
            }
            d.stored_mismatches += usize::from(stored.len() > before);
        }
    }
    (parsers, stored, d)
}

/// Pearson's r of paired values (NaN with fewer than 3 pairs or no spread).
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    if n < 3 {
        return f64::NAN;
    }
    let (mx, my) = (
        x[..n].iter().sum::<f64>() / n as f64,
        y[..n].iter().sum::<f64>() / n as f64,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (a, b) = (x[i] - mx, y[i] - my);
        sxy += a * b;
        sxx += a * a;
        syy += b * b;
    }
    sxy / (sxx * syy).sqrt()
}

/// Average ranks (ties share their mean rank), 1-based.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        for &k in &idx[i..=j] {
            r[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rho: Pearson's r of the average ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    pearson(&ranks(x), &ranks(y))
}

/// Writes per_answer.csv, summary.csv, table3.csv, groups.csv, parser_differences.csv,
/// stored_differences.csv, report.md and (optionally) the plots.
pub fn write_outputs(rows: &[Row], out: &Path, alpha: f64, draw: bool) -> Result<Differences> {
    let per: Vec<AnswerRow> = rows
        .iter()
        .filter(|r| r.has_rule_answer)
        .map(|r| {
            let s = r.scores();
            AnswerRow {
                model: &r.model,
                setting: r.setting.name(),
                record: r.record,
                status: &r.status,
                c_dict_n: s.c_dict_n,
                c_dict_m: s.c_dict_m,
                c_block_n: s.c_block_n,
                c_block_m: s.c_block_m,
                c_n: s.c_n,
                c_m: s.c_m,
                c_length: s.c_length,
                c_error: s.c_error,
                c: s.c,
                norm_c: fmt(s.norm_c),
                log_norm_c: fmt(s.log_norm_c),
                in_acc: fmt(s.in_acc),
                l_p_plus: s.l_p_plus,
                errors: s.errors,
                c_p: fmt(s.norm_c),
                profile: &s.profile,
                clip: s.clip_note().unwrap_or_default(),
                parser: r.parser.name(),
                reference_norm_c: fmt(r.reference.norm_c),
                robust_norm_c: fmt(r.robust.norm_c),
                stored_norm_c: r
                    .stored
                    .as_ref()
                    .and_then(|v| v.get("norm_c").and_then(num))
                    .map(fmt)
                    .unwrap_or_default(),
                result_correct: r.result_correct,
                dataset: &r.dataset,
                l_bits: fmt(s.l_bits),
                unaccounted_bits: fmt(r.robust.unaccounted_bits),
                hidden_data: r.robust.hidden_data.clone().unwrap_or_default(),
            }
        })
        .collect();
    write_csv(&out.join("per_answer.csv"), &per)?;

    let cells = cells(rows);
    let parser_mode = rows
        .first()
        .map_or(crate::programs::mapping_table::ParserMode::Reference, |r| {
            r.parser
        });
    let parser = parser_mode.name();
    let mut md = format!(
        "# Mapping-table report\n\nParser: {parser}. L(P+) in mapping-table entries, E(P) in \
         samples, C(P) in [0, 100]. `log_norm_c` is C(P) on a log scale, \
         100 (ln L_z - ln L(P)) / (ln L_z - ln L_s) with L(P) clipped to [L_s, L_z]; `in_acc` \
         is the percentage of the d samples the program gets right. Means are over all \
         answers: failed (timeout, output limit, crash, sandbox error), empty (no program) and \
         unscorable (no record) answers count as the published evaluator scores them (the \
         empty program: E = d, C = 0).\n\n\
         | model | setting | answers | ok | failed | empty | unscorable | L(P+) | E(P) | C(P) | log_norm_c | in_acc [%] | result acc. [%] |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    let mut summary = Vec::new();
    for c in cells.iter().filter(|c| c.total > 0) {
        let (lm, ls) = mean_std(&c.l_plus);
        let (em, es) = mean_std(&c.errors);
        let (cm, cs) = mean_std(&c.c);
        let lcm = mean_std(&c.log_c).0;
        let iam = mean_std(&c.in_acc).0;
        let acc = c.result_acc.map(fmt).unwrap_or_default();
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} ± {} | {} ± {} | {} ± {} | {} | {} | {} |\n",
            md_name(&c.model),
            c.setting.name(),
            c.total,
            c.scored,
            c.failed,
            c.empty,
            c.unscorable,
            fmt(lm),
            fmt(ls),
            fmt(em),
            fmt(es),
            fmt(cm),
            fmt(cs),
            fmt(lcm),
            fmt(iam),
            acc
        ));
        summary.push(SummaryRow {
            model: &c.model,
            setting: c.setting.name(),
            answers: c.total,
            scored: c.scored,
            failed: c.failed,
            empty: c.empty,
            unscorable: c.unscorable,
            l_mean: fmt(lm),
            l_std: fmt(ls),
            e_mean: fmt(em),
            e_std: fmt(es),
            c_mean: fmt(cm),
            c_std: fmt(cs),
            log_c_mean: fmt(lcm),
            in_acc_mean: fmt(iam),
            result_answers: c.result_answers,
            result_acc: acc,
            dataset: &c.dataset,
        });
    }
    write_csv(&out.join("summary.csv"), &summary)?;
    md.push_str(&table3(&cells, out)?);
    md.push_str(&groups(&cells, out, alpha)?);

    let (parsers, stored, d) = diff_rows(rows);
    write_csv(&out.join("parser_differences.csv"), &parsers)?;
    write_csv(&out.join("stored_differences.csv"), &stored)?;
    md.push_str(&format!(
        "\n## Differences\n\n- reference vs robust parser: {} answers differ on at least one \
         evaluator field ({} fields; `parser_differences.csv`, left = reference, right = \
         robust).\n- stored `_info.json` vs kcomp's reference scores: {} of {} answers differ \
         (`stored_differences.csv`, left = stored, right = kcomp).\n",
        d.parser_answers,
        parsers.len(),
        d.stored_mismatches,
        rows.iter().filter(|r| r.stored.is_some()).count()
    ));
    md.push_str(&format!(
        "\nProfiles: T1 = L(P+) <= {LOW_TABLE_FACTOR} L_s and E(P) <= {LOW_ERRORS}; T2 = larger \
         table, E(P) <= {LOW_ERRORS}; T3 = small table, more errors; none = both large; \
         no_program = the answer holds no program. `clip` in per_answer.csv says when the \
         reference's clip floor (U N, U M) or ceiling (d N, d M) set n or m.\n"
    ));
    if draw {
        for (name, res) in [
            (
                "c_by_setting.png",
                plots::c_by_setting(&cells, &out.join("c_by_setting"), parser_mode),
            ),
            (
                "plane.png",
                plots::plane(&cells, &out.join("plane"), parser_mode),
            ),
        ] {
            match res {
                Ok(_) => md.push_str(&format!("\n![{name}]({name})\n")),
                Err(e) => crate::progress::note(&format!("warning: plot {name} not written: {e}")),
            }
        }
    }
    crate::io::files::atomic_write(&out.join("report.md"), md.as_bytes())?;
    Ok(d)
}

/// Table 3: result-generation accuracy per model x setting beside mean C(P), and their
/// correlation over the cells that have both (table3.csv, table3_correlation.csv).
fn table3(cells: &[Cell], out: &Path) -> Result<String> {
    let with: Vec<&Cell> = cells.iter().filter(|c| c.result_acc.is_some()).collect();
    let rows: Vec<Table3Row> = with
        .iter()
        .map(|c| Table3Row {
            model: &c.model,
            setting: c.setting.name(),
            accuracy: c.result_acc.map(fmt).unwrap_or_default(),
            answers: c.result_answers,
            c_mean: fmt(mean_std(&c.c).0),
        })
        .collect();
    write_csv(&out.join("table3.csv"), &rows)?;
    let pairs: Vec<(f64, f64)> = with
        .iter()
        .filter_map(|c| {
            let m = mean_std(&c.c).0;
            Some((c.result_acc?, m)).filter(|_| m.is_finite())
        })
        .collect();
    let (a, cp): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
    let (r, rho) = (pearson(&a, &cp), spearman(&a, &cp));
    #[derive(Serialize)]
    struct Corr {
        cells: usize,
        pearson_r: String,
        spearman_rho: String,
    }
    write_csv(
        &out.join("table3_correlation.csv"),
        &[Corr {
            cells: pairs.len(),
            pearson_r: fmt(r),
            spearman_rho: fmt(rho),
        }],
    )?;
    if rows.is_empty() {
        return Ok(String::new());
    }
    let mut md = String::from(
        "\n## Result generation vs rule generation (Table 3)\n\nA = exact-match accuracy of \
         the result-generation answers (8 samples shown, the last asked; judged as \
         `program_eval_cg.py` does), beside mean C(P).\n\n| model | setting | A [%] | answers | C(P) |\n|---|---|---|---|---|\n",
    );
    for r in &rows {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            md_name(r.model),
            r.setting,
            r.accuracy,
            r.answers,
            r.c_mean
        ));
    }
    md.push_str(&format!(
        "\nCorrelation of A and C(P) over {} model x setting cells: Pearson r = {}, Spearman \
         rho = {} (empty with fewer than 3 cells).\n",
        pairs.len(),
        fmt(r),
        fmt(rho)
    ));
    Ok(md)
}

/// Table 5: per setting and metric, models ranked strongest first, grouped by significance.
fn groups(cells: &[Cell], out: &Path, alpha: f64) -> Result<String> {
    let mut rows = Vec::new();
    let mut md = format!(
        "\n## Significance groups (Mann-Whitney U, p < {alpha}; strongest first)\n\n| setting | metric | groups |\n|---|---|---|\n"
    );
    for setting in Setting::ALL {
        let here: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.setting == setting && !c.c.is_empty())
            .collect();
        if here.len() < 2 {
            continue;
        }
        for (metric, pick, higher_better) in [
            (
                "L(P+)",
                (|c: &Cell| c.l_plus.clone()) as fn(&Cell) -> Vec<f64>,
                false,
            ),
            ("E(P)", |c: &Cell| c.errors.clone(), false),
            ("C(P)", |c: &Cell| c.c.clone(), true),
        ] {
            let mut items: Vec<(String, Vec<f64>)> =
                here.iter().map(|c| (c.model.clone(), pick(c))).collect();
            items.sort_by(|a, b| {
                let (ma, mb) = (mean_std(&a.1).0, mean_std(&b.1).0);
                if higher_better {
                    mb.total_cmp(&ma)
                } else {
                    ma.total_cmp(&mb)
                }
            });
            let found = mannwhitney::significance_groups(&items, alpha);
            let mut text = Vec::new();
            for (gi, g) in found.iter().enumerate() {
                let mut parts = Vec::new();
                for m in g {
                    let mean = items
                        .iter()
                        .find(|i| &i.0 == m)
                        .map_or(f64::NAN, |i| mean_std(&i.1).0);
                    parts.push(format!("{} {}", md_name(m), fmt(mean)));
                    rows.push((setting.name(), metric, gi + 1, m.clone(), fmt(mean)));
                }
                text.push(format!("({})", parts.join(", ")));
            }
            md.push_str(&format!(
                "| {} | {} | {} |\n",
                setting.name(),
                metric,
                text.join(" ")
            ));
        }
    }
    let rows: Vec<GroupRow> = rows
        .iter()
        .map(|(setting, metric, group, model, mean)| GroupRow {
            setting,
            metric,
            group: *group,
            model,
            mean: mean.clone(),
        })
        .collect();
    write_csv(&out.join("groups.csv"), &rows)?;
    Ok(md)
}

/// Writes the rows in the published layout under `dest`: `result/{model}/{dataset}/{i}.txt`
/// (the answer), `{i}.py` (the program the reference parser scored), `{i}_info.json` (the
/// selected parser's evaluator fields, as `json.dumps(indent=4)`), `stat_{n}.json` (their
/// means over records 0..n, n = the number of consecutive records from 0), and
/// `result_cg8/{model}/{dataset}/{i}.txt` (result answers).
pub fn write_published(rows: &[Row], dest: &Path) -> Result<()> {
    use crate::io::names::path_component;
    let mut groups: std::collections::BTreeMap<(&str, &str), Vec<&Row>> = Default::default();
    for r in rows {
        groups.entry((&r.model, &r.dataset)).or_default().push(r);
    }
    for ((model, dataset), mut rs) in groups {
        rs.sort_by_key(|r| r.record);
        // Model and dataset names were read from disk: one safe path component each, and
        // nothing is written through a link planted under `dest`.
        let (model, dataset) = (path_component(model), path_component(dataset));
        let dir = Path::new("result").join(&model).join(&dataset);
        let cg = Path::new("result_cg8").join(&model).join(&dataset);
        let write = |rel: std::path::PathBuf, text: &str| layout::write_under(dest, &rel, text);
        for r in &rs {
            if let Some(a) = &r.result_answer {
                write(cg.join(format!("{}.txt", r.record)), a)?;
            }
            if !r.has_rule_answer {
                continue;
            }
            let i = r.record;
            if let Some(a) = &r.answer {
                write(dir.join(format!("{i}.txt")), a)?;
            }
            write(dir.join(format!("{i}.py")), &r.program)?;
            let info = layout::python_json(&r.scores().evaluator_pairs());
            write(dir.join(format!("{i}_info.json")), &info)?;
        }
        let scored: Vec<&Row> = rs.iter().filter(|r| r.has_rule_answer).copied().collect();
        let n = scored
            .iter()
            .enumerate()
            .take_while(|(i, r)| r.record == *i)
            .count();
        if n > 0 {
            let scores: Vec<_> = scored[..n].iter().map(|r| r.scores()).collect();
            write(
                dir.join(format!("stat_{n}.json")),
                &layout::stat_json(&scores),
            )?;
        }
    }
    Ok(())
}
