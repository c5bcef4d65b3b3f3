//! Figure of experiments/prequential-accuracy/results/grammar_tree.csv: prequential C
//! (K(Z) / prequential K(Z|W), the online mixture with and without the tree learner) beside
//! the exact C, against depth (width 1) and width (depth 2), per composition; and, where the
//! CSV holds the whole width x depth grid, C over it at its largest N (`OUT_STEM_grid`).
//!
//! Usage: cargo run --release --example grammar_tree_figure -- [CSV] [OUT_STEM]

use std::collections::BTreeMap;
use std::path::Path;

use kcomp::plot::{Figure, Panel, Point, RefLine, Series, XAxis, line_figure};

struct Row {
    composition: String,
    width: usize,
    depth: usize,
    n: usize,
    seed: u64,
    scheme: String,
    exact_c: f64,
    c: f64,
}

fn parse(path: &str) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty CSV")?.split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or(format!("{path}: no column {name}"))
    };
    let (setting, n, seed, scheme, exact, kz, c) = (
        col("setting")?,
        col("N")?,
        col("seed")?,
        col("scheme")?,
        col("exact_encoded_bits")?,
        col("k_z_bits")?,
        col("c_l")?,
    );
    let mut rows = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok());
        // Settings read "vocab=20 width=W depth=D composition" (the default 3 x 2 linear grammar
        // is "vocab=20").
        let words: Vec<&str> = f.get(setting).unwrap_or(&"").split(' ').collect();
        let key = |k: &str| {
            words
                .iter()
                .find_map(|w| w.strip_prefix(k))
                .and_then(|v| v.parse::<usize>().ok())
        };
        let (width, depth) = (key("width=").unwrap_or(3), key("depth=").unwrap_or(2));
        let composition = if words.len() >= 4 { words[3] } else { "linear" };
        let (Some(nn), Some(sd), Some(ex), Some(k), Some(cc)) =
            (num(n), num(seed), num(exact), num(kz), num(c))
        else {
            return Err(format!("{path}: unreadable row {line}"));
        };
        rows.push(Row {
            composition: composition.to_string(),
            width,
            depth,
            n: nn as usize,
            seed: sd as u64,
            // `online+fast+tree` and `online+fast` are the same mixture (the tree learner is a
            // default).
            scheme: f[scheme].replace("online+fast+tree", "online+fast"),
            exact_c: k / ex,
            c: cc,
        });
    }
    Ok(rows)
}

fn panel(rows: &[Row], composition: &str, by_depth: bool) -> Panel {
    // Seed 0: the seed every cell has (a subset is run at more seeds; see the summariser).
    let keep = |r: &&Row| {
        r.seed == 0
            && r.composition == composition
            && if by_depth { r.width == 1 } else { r.depth == 2 }
    };
    let x_of = |r: &Row| if by_depth { r.depth } else { r.width } as f64;
    let ns: Vec<usize> = {
        let mut v: Vec<usize> = rows.iter().filter(keep).map(|r| r.n).collect();
        v.sort();
        v.dedup();
        v
    };
    let mut series = Vec::new();
    let mean_points = |pick: &dyn Fn(&Row) -> Option<f64>| {
        let mut by_x: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
        for r in rows.iter().filter(keep) {
            if let Some(y) = pick(r) {
                by_x.entry(x_of(r) as u64).or_default().push(y);
            }
        }
        by_x.into_iter()
            .map(|(x, ys)| Point {
                x: x as f64,
                y: ys.iter().sum::<f64>() / ys.len() as f64,
                err: 0.0,
            })
            .collect::<Vec<_>>()
    };
    for (i, &n) in ns.iter().enumerate() {
        series.push(Series {
            label: format!("exact C, N = {n}"),
            points: mean_points(&|r| (r.n == n && r.scheme == "online+fast").then_some(r.exact_c)),
            reference: true,
            color: i,
        });
        series.push(Series {
            label: format!("prequential C (tree in mixture), N = {n}"),
            points: mean_points(&|r| (r.n == n && r.scheme == "online+fast").then_some(r.c)),
            reference: false,
            color: i,
        });
    }
    if let Some(&n) = ns.last() {
        series.push(Series {
            label: format!("prequential C without the tree learner, N = {n}"),
            points: mean_points(&|r| (r.n == n && r.scheme == "online+fast+notree").then_some(r.c)),
            reference: false,
            color: 6,
        });
    }
    c_panel(
        format!(
            "{composition} composition, {}",
            if by_depth { "width 1" } else { "depth 2" }
        ),
        by_depth,
        series,
    )
}

/// A panel of C against depth (`by_depth`) or width, with the line C = 1.
fn c_panel(title: String, by_depth: bool, series: Vec<Series>) -> Panel {
    Panel {
        title,
        x_label: if by_depth {
            "grammar depth (levels)".into()
        } else {
            "non-terminals per level".into()
        },
        y_label: "C = K(Z) / K(Z|W)".into(),
        x_axis: XAxis::Linear { integer: true },
        y_log: false,
        y_range: None,
        series,
        reference_line: Some(RefLine::c_one()),
    }
}

/// Over the whole grid at one N (seed 0): C against width, one line per depth
/// (`along_width`), or against depth, one line per width.
fn grid_panel(rows: &[Row], composition: &str, n: usize, along_width: bool) -> Panel {
    let keep = |r: &&Row| {
        r.seed == 0 && r.composition == composition && r.n == n && r.scheme == "online+fast"
    };
    let x_of = |r: &Row| if along_width { r.width } else { r.depth };
    let line_of = |r: &Row| if along_width { r.depth } else { r.width };
    let mut lines: Vec<usize> = rows.iter().filter(keep).map(&line_of).collect();
    lines.sort();
    lines.dedup();
    let mut series = Vec::new();
    for (i, &l) in lines.iter().enumerate() {
        let points = |pick: &dyn Fn(&Row) -> f64| {
            let mut p: Vec<Point> = rows
                .iter()
                .filter(keep)
                .filter(|r| line_of(r) == l)
                .map(|r| Point {
                    x: x_of(r) as f64,
                    y: pick(r),
                    err: 0.0,
                })
                .collect();
            p.sort_by(|a, b| a.x.total_cmp(&b.x));
            p
        };
        let name = if along_width { "depth" } else { "width" };
        series.push(Series {
            label: format!("exact C, {name} {l}"),
            points: points(&|r| r.exact_c),
            reference: true,
            color: i,
        });
        series.push(Series {
            label: format!("prequential C, {name} {l}"),
            points: points(&|r| r.c),
            reference: false,
            color: i,
        });
    }
    c_panel(
        format!("{composition} composition, N = {n}"),
        !along_width,
        series,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let csv = args
        .get(1)
        .map(String::as_str)
        .unwrap_or("experiments/prequential-accuracy/results/grammar_tree.csv");
    let stem = args
        .get(2)
        .map(String::as_str)
        .unwrap_or("experiments/prequential-accuracy/results/grammar_tree_c");
    let rows = match parse(csv) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut panels = Vec::new();
    for composition in ["linear", "tensor"] {
        for by_depth in [true, false] {
            panels.push(panel(&rows, composition, by_depth));
        }
    }
    kcomp::plot::share_y_range(&mut panels);
    let figure = Figure {
        panels,
        caption: "Grammar representations (vocabulary 20, D = 10, M = 16, seed 0): exact C \
                  (crosses) and prequential C of the online mixture without its MLPs"
            .into(),
    };
    // The whole width x depth grid at the largest N run over it.
    let grid_n = rows
        .iter()
        .filter(|r| r.seed == 0 && r.width > 1 && r.depth != 2)
        .map(|r| r.n)
        .max();
    let mut figures = vec![(stem.to_string(), figure)];
    if let Some(n) = grid_n {
        let mut panels = Vec::new();
        for composition in ["linear", "tensor"] {
            for along_width in [true, false] {
                panels.push(grid_panel(&rows, composition, n, along_width));
            }
        }
        kcomp::plot::share_y_range(&mut panels);
        figures.push((
            format!("{stem}_grid"),
            Figure {
                panels,
                caption: format!(
                    "Grammar representations over widths 1-4 and depths 1-4 (vocabulary 20, D = \
                     10, M = 16, N = {n}, seed 0): exact C (crosses) and prequential C of the \
                     online mixture without its MLPs (lines), one colour per depth (left) or \
                     width (right)"
                ),
            },
        ));
    }
    for (stem, figure) in &figures {
        match line_figure(Path::new(stem), figure) {
            Ok(paths) => {
                for p in paths {
                    println!("{}", p.display());
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
    }
}
