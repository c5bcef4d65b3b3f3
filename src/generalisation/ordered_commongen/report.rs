//! The report of `kcomp commongen score`: CSV tables, scores.json (with the definitions and
//! units), report.md (per-model tables) and the figure (coverage by POS pattern).

use std::fmt;
use std::path::{Path, PathBuf};

use super::score::{CoverageRow, Scores};
use crate::error::Result;
use crate::io::names::{markdown_cell, terminal};
use crate::plot::{Figure, Panel, Point, Series, XAxis, line_figure};

/// The definitions written into scores.json and report.md.
pub const DEFINITIONS: [(&str, &str); 9] = [
    (
        "coverage_pct",
        "% of outputs holding all four concepts in any order (coverage w/o order)",
    ),
    (
        "ordered_coverage_pct",
        "% of outputs holding all four concepts in the specified order (coverage w/ order)",
    ),
    (
        "ordered_rate_pct",
        "ordered_coverage / coverage: % of covering outputs that keep the specified order",
    ),
    (
        "concept_coverage_pct",
        "% of the concepts present in the outputs, any order (concept level)",
    ),
    (
        "concept_ordered_coverage_pct",
        "longest subsequence of the specified order found in order / 4, % (concept level)",
    ),
    (
        "diverse_rate_pct",
        "mean over (set, template) of distinct outputs / outputs across the 24 orders, %",
    ),
    (
        "distinct_orders_mean",
        "mean over (set, template) of distinct realised concept orders among covering outputs (1..24)",
    ),
    (
        "pairwise_bleu",
        "mean over (set, template) of the mean sentence BLEU-4 of every ordered pair of outputs (0-100; higher = less diverse)",
    ),
    (
        "matching",
        "words = lower-cased runs of letters and digits; a word is a concept if it is one of its forms in the lemma table (data/lemmas.tsv)",
    ),
];

fn cell(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.1}"))
}

fn coverage_table(rows: &[&CoverageRow], first: &str, group: bool) -> String {
    let mut s = format!(
        "| {first} | outputs | coverage w/o order % | ordered coverage % | ordered rate % | concepts % | concepts in order % |\n|---|---:|---:|---:|---:|---:|---:|\n"
    );
    for r in rows {
        let name = if group {
            r.group.clone()
        } else {
            r.model.clone()
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            markdown_cell(&name),
            r.outputs,
            cell(r.coverage_pct),
            cell(r.ordered_coverage_pct),
            cell(r.ordered_rate_pct),
            cell(r.concept_coverage_pct),
            cell(r.concept_ordered_coverage_pct)
        ));
    }
    s
}

/// Ordered coverage (coverage w/o order) by POS pattern, one column per model.
fn pattern_table(scores: &Scores) -> String {
    let mut patterns: Vec<&str> = Vec::new();
    for r in &scores.patterns {
        if !patterns.contains(&r.group.as_str()) {
            patterns.push(&r.group);
        }
    }
    patterns.sort_by_key(|p| (p.matches('V').count(), p.to_string()));
    let mut s = String::from(
        "\n## Ordered coverage % (coverage w/o order %) by POS pattern of the specified order\n\n| pattern |",
    );
    for m in &scores.models {
        s.push_str(&format!(" {} |", markdown_cell(m)));
    }
    s.push_str("\n|---|");
    s.push_str(&"---:|".repeat(scores.models.len()));
    s.push('\n');
    for p in patterns {
        s.push_str(&format!("| {p} |"));
        for m in &scores.models {
            let r = scores
                .patterns
                .iter()
                .find(|r| &r.model == m && r.group == p);
            match r {
                Some(r) => s.push_str(&format!(
                    " {} ({}) |",
                    cell(r.ordered_coverage_pct),
                    cell(r.coverage_pct)
                )),
                None => s.push_str(" - |"),
            }
        }
        s.push('\n');
    }
    s
}

/// report.md.
pub fn markdown(scores: &Scores) -> String {
    let mut s = String::from(
        "# Ordered CommonGen scores\n\nSakai, Kamigaito, Watanabe, \"Revisiting Compositional Generalization Capability of Large Language Models Considering Instruction Following Ability\" (Ordered CommonGen), ACL 2025, arXiv 2506.15629. Concepts matched through kcomp's lemma table, not spaCy (docs/ordered-commongen.md).\n\n## Per model\n\n",
    );
    let overall: Vec<&CoverageRow> = scores.overall.iter().collect();
    s.push_str(&coverage_table(&overall, "model", false));
    s.push_str("\nOutputs missing of the full benchmark (27,648 prompts): ");
    let missing: Vec<String> = scores
        .missing
        .iter()
        .map(|(m, n)| format!("{} {n}", markdown_cell(m)))
        .collect();
    s.push_str(&missing.join(", "));
    s.push_str("\n\n## Diversity across the 24 orders\n\n| model | groups | complete groups | diverse rate % | identical groups | distinct orders | Pairwise-BLEU |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for d in &scores.diversity {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            markdown_cell(&d.model),
            d.groups,
            d.complete_groups,
            cell(d.diverse_rate_pct),
            d.identical_groups,
            d.distinct_orders_mean
                .map_or("-".into(), |x| format!("{x:.2}")),
            cell(d.pairwise_bleu)
        ));
    }
    s.push_str(&pattern_table(scores));
    for model in &scores.models {
        s.push_str(&format!(
            "\n## {}\n\n### By template\n\n",
            markdown_cell(model)
        ));
        let t: Vec<&CoverageRow> = scores
            .templates
            .iter()
            .filter(|r| &r.model == model)
            .collect();
        s.push_str(&coverage_table(&t, "template", true));
        s.push_str("\n### By POS pattern of the specified order\n\n");
        let p: Vec<&CoverageRow> = scores
            .patterns
            .iter()
            .filter(|r| &r.model == model)
            .collect();
        s.push_str(&coverage_table(&p, "pattern", true));
    }
    s.push_str("\n## Definitions\n\n");
    for (k, v) in DEFINITIONS {
        s.push_str(&format!("- `{k}`: {v}\n"));
    }
    s
}

/// scores.json: definitions, then the tables.
pub fn json(scores: &Scores) -> serde_json::Value {
    let defs: serde_json::Map<String, serde_json::Value> = DEFINITIONS
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
        .collect();
    serde_json::json!({
        "benchmark": "Ordered CommonGen (Sakai, Kamigaito, Watanabe, ACL 2025, arXiv 2506.15629)",
        "units": "percent (0-100) unless a name says otherwise; Pairwise-BLEU 0-100",
        "definitions": defs,
        "overall": scores.overall,
        "templates": scores.templates,
        "patterns": scores.patterns,
        "diversity": scores.diversity,
        "missing": scores.missing.iter().map(|(m, n)| serde_json::json!({"model": m, "missing": n})).collect::<Vec<_>>(),
    })
}

/// The figure: coverage w/o order and ordered coverage per POS pattern, one line per model.
pub fn figure(scores: &Scores, stem: &Path) -> Result<Vec<PathBuf>> {
    let mut patterns: Vec<String> = scores.patterns.iter().map(|r| r.group.clone()).collect();
    patterns.sort();
    patterns.dedup();
    // NNNN first, VVVV last: sort by the number of verbs, then alphabetically.
    patterns.sort_by_key(|p| (p.matches('V').count(), p.clone()));
    // Outputs behind each pattern's percentages (over the models: one number or a range).
    let labels: Vec<String> = patterns
        .iter()
        .map(|p| {
            let ns: Vec<usize> = scores
                .patterns
                .iter()
                .filter(|r| &r.group == p)
                .map(|r| r.outputs)
                .collect();
            let (lo, hi) = (
                ns.iter().min().copied().unwrap_or(0),
                ns.iter().max().copied().unwrap_or(0),
            );
            // No-break spaces: a label wraps between the pattern and its n, never inside n.
            if lo == hi {
                format!("{p} (n\u{a0}=\u{a0}{lo})")
            } else {
                format!("{p} (n\u{a0}=\u{a0}{lo}\u{a0}to\u{a0}{hi})")
            }
        })
        .collect();
    let series = |value: &dyn Fn(&CoverageRow) -> Option<f64>| -> Vec<Series> {
        scores
            .models
            .iter()
            .enumerate()
            .map(|(i, m)| Series {
                label: terminal(m).into_owned(),
                points: scores
                    .patterns
                    .iter()
                    .filter(|r| &r.model == m)
                    .filter_map(|r| {
                        let x = patterns.iter().position(|p| *p == r.group)? as f64;
                        let y = value(r)?;
                        // Binomial standard error of a percentage over the pattern's outputs.
                        let q = y / 100.0;
                        let err = 100.0 * (q * (1.0 - q) / r.outputs.max(1) as f64).sqrt();
                        Some(Point { x, y, err })
                    })
                    .collect(),
                reference: false,
                color: i,
            })
            .collect()
    };
    let panel = |title: &str, s: Vec<Series>| Panel {
        title: title.into(),
        x_label: "POS pattern of the specified order (N noun, V verb)".into(),
        y_label: "% of outputs".into(),
        x_axis: XAxis::Categories(labels.clone()),
        y_log: false,
        y_range: Some((0.0, 100.0)),
        series: s,
        reference_line: None,
    };
    let fig = Figure {
        panels: vec![
            panel("Coverage w/o order", series(&|r| r.coverage_pct)),
            panel("Ordered coverage", series(&|r| r.ordered_coverage_pct)),
        ],
        caption: "Ordered CommonGen (Sakai et al., ACL 2025): % of outputs holding all four concepts (left) and holding them in the specified order (right), by the POS pattern of the specified order (n: the outputs of a model behind each point); error bars: +-1 binomial standard error, sqrt(p (1 - p) / n); concepts matched through kcomp's lemma table.".into(),
    };
    line_figure(stem, &fig)
}

/// The files a report wrote.
#[derive(Debug, Clone)]
pub struct Written {
    pub files: Vec<PathBuf>,
}

/// The stamp of a report folder: the outputs it scored.
pub fn stamp(source: &Path) -> serde_json::Value {
    serde_json::json!({
        "command": "commongen score",
        "outputs": source.to_string_lossy(),
    })
}

/// Writes every table, report.md, scores.json and the figure into `out`, which must be
/// empty or hold this command's outputs for the same `source` (see
/// [`crate::io::out_dir::claim`]) unless `force`.
pub fn write_report(scores: &Scores, source: &Path, out: &Path, force: bool) -> Result<Written> {
    use crate::io::files::atomic_write;
    use crate::io::table::write_csv;
    crate::io::out_dir::claim(out, &stamp(source), force)?;
    let mut files = Vec::new();
    let mut put = |name: &str| {
        let p = out.join(name);
        files.push(p.clone());
        p
    };
    write_csv(&put("summary.csv"), &scores.overall)?;
    write_csv(&put("templates.csv"), &scores.templates)?;
    write_csv(&put("pos_patterns.csv"), &scores.patterns)?;
    write_csv(&put("diversity.csv"), &scores.diversity)?;
    write_csv(&put("per_output.csv"), &scores.outputs)?;
    let j = serde_json::to_string_pretty(&json(scores)).expect("scores serialise");
    atomic_write(&put("scores.json"), format!("{j}\n").as_bytes())?;
    atomic_write(&put("report.md"), markdown(scores).as_bytes())?;
    files.extend(figure(scores, &out.join("coverage_by_pattern"))?);
    Ok(Written { files })
}

impl fmt::Display for Scores {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        writeln!(
            f,
            "{:<28} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "model", "outputs", "cover%", "ordered%", "rate%", "diverse%", "pw-BLEU"
        )?;
        for (r, d) in self.overall.iter().zip(&self.diversity) {
            writeln!(
                f,
                "{:<28} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10}",
                terminal(&r.model),
                r.outputs,
                cell(r.coverage_pct),
                cell(r.ordered_coverage_pct),
                cell(r.ordered_rate_pct),
                cell(d.diverse_rate_pct),
                cell(d.pairwise_bleu)
            )?;
        }
        Ok(())
    }
}
