//! Every figure kind (line figure, scatter, heat map, and the figures `kcomp sweep`, `kcomp
//! compare` and `kcomp prequential` write): the SVG's text has no duplicated tick labels on an
//! axis and nothing drawn outside the image (clipped); C plots carry the C = 1 line and titles
//! describe the data rather than repeat config names. Run with KCOMP_KEEP_FIGURES=DIR to keep
//! the figures for a look.

use std::path::{Path, PathBuf};
use std::process::Command;

use kcomp::plot::{
    Figure, HeatCell, LabelledPoint, Panel, Point, RefLine, Region, Scatter, Series, XAxis,
};

/// x, y, anchor, font size and text of one `<text>`.
type Text = (f64, f64, String, f64, String);

/// Every `<text>` of an SVG, and its width and height.
fn texts(svg: &str) -> (Vec<Text>, f64, f64) {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let key = format!(" {name}=\"");
        let at = tag.find(&key)? + key.len();
        Some(tag[at..].split('"').next()?.to_string())
    };
    let head = &svg[svg.find("<svg").unwrap()..];
    let head = &head[..head.find('>').unwrap()];
    let num = |s: Option<String>| s.and_then(|v| v.trim_end_matches("px").parse::<f64>().ok());
    let (w, h) = (
        num(attr(head, "width")).unwrap(),
        num(attr(head, "height")).unwrap(),
    );
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        let tag_end = start + rest[start..].find('>').unwrap();
        let tag = &rest[start..tag_end];
        let close = tag_end + rest[tag_end..].find("</text>").unwrap();
        let body = rest[tag_end + 1..close]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        out.push((
            num(attr(tag, "x")).unwrap_or(0.0),
            num(attr(tag, "y")).unwrap_or(0.0),
            // Rotated text (a y-axis title) runs vertically: only its anchor is checked.
            if tag.contains("rotate") {
                "rotated".into()
            } else {
                attr(tag, "text-anchor").unwrap_or_else(|| "start".into())
            },
            num(attr(tag, "font-size")).unwrap_or(12.0),
            body.trim().to_string(),
        ));
        rest = &rest[close..];
    }
    (out, w, h)
}

/// No text extends past the image (width estimated at 0.5 em per character, a lower bound for
/// sans-serif digits and letters) and numeric tick labels on one axis line are unique.
fn check(svg_path: &Path) {
    check_text(svg_path, true);
}

/// [`check`] for a heat map: its cells repeat values legitimately, so only the clipping is
/// checked (its colour-bar ticks are fixed: -1, -0.5, 0, 0.5, 1).
fn check_heatmap(svg_path: &Path) {
    check_text(svg_path, false);
}

fn check_text(svg_path: &Path, ticks: bool) {
    let svg = std::fs::read_to_string(svg_path).unwrap();
    let (texts, w, h) = texts(&svg);
    assert!(!texts.is_empty());
    for (x, y, anchor, size, body) in &texts {
        let tw = 0.5 * size * body.chars().count() as f64;
        let (left, right) = match anchor.as_str() {
            "middle" => (x - tw / 2.0, x + tw / 2.0),
            "end" => (x - tw, *x),
            "rotated" => (*x, *x),
            _ => (*x, x + tw),
        };
        assert!(
            left >= -1.0 && right <= w + 1.0 && *y >= -1.0 && *y <= h + 1.0,
            "{}: `{body}` at ({x}, {y}) size {size} is clipped (image {w} x {h})",
            svg_path.display()
        );
    }
    // Tick labels: numeric texts on one axis must differ. A y axis: the same x within one row
    // of panels (rows are 470 px high); an x axis: the same y within one column of panels
    // (numeric panels are 620 px wide; the same tick of the next panel is another axis, even
    // when it sits close, as the last epoch of one panel and the first V of the next).
    let numeric: Vec<&Text> = texts
        .iter()
        .filter(|t| ticks && t.4.trim().parse::<f64>().is_ok())
        .collect();
    for (i, a) in numeric.iter().enumerate() {
        for b in &numeric[i + 1..] {
            let row = |t: &Text| (t.1 / 470.0).floor();
            let column = |t: &Text| (t.0 / 620.0).floor();
            let same_axis = ((a.0 - b.0).abs() < 0.5 && row(a) == row(b))
                || ((a.1 - b.1).abs() < 0.5 && column(a) == column(b));
            assert!(
                !(same_axis && a.4 == b.4),
                "{}: tick label `{}` repeated at ({}, {}) and ({}, {})",
                svg_path.display(),
                a.4,
                a.0,
                a.1,
                b.0,
                b.1
            );
        }
    }
    if let Some(keep) = std::env::var_os("KCOMP_KEEP_FIGURES") {
        // Several tests write a `c.svg`: the test's name keeps their copies apart.
        let test = std::thread::current()
            .name()
            .unwrap_or("figure")
            .replace("::", "_");
        std::fs::create_dir_all(&keep).unwrap();
        for ext in ["svg", "png"] {
            let p = svg_path.with_extension(ext);
            let name = format!("{test}__{}", p.file_name().unwrap().to_string_lossy());
            // The checker's self-test writes an SVG alone.
            if p.exists() {
                std::fs::copy(&p, Path::new(&keep).join(name)).unwrap();
            }
        }
    }
}

/// The checker itself: the same number twice on one x axis of one panel fails; the same
/// number on the x axes of two panels side by side (580 and 640 px: either side of the 620 px
/// boundary) passes.
#[test]
fn the_tick_check_fails_on_a_repeated_label_and_only_within_a_panel() {
    let dir = tempfile::tempdir().unwrap();
    let svg = |name: &str, xs: [f64; 2]| {
        let path = dir.path().join(name);
        let body: String = xs
            .iter()
            .map(|x| {
                format!(
                    "<text x=\"{x}\" y=\"416\" font-size=\"12\" text-anchor=\"middle\">2</text>"
                )
            })
            .collect();
        std::fs::write(
            &path,
            format!("<svg width=\"1240\" height=\"600\">{body}</svg>"),
        )
        .unwrap();
        path
    };
    check(&svg("two_panels.svg", [580.0, 640.0]));
    let one_panel = svg("one_panel.svg", [100.0, 500.0]);
    let repeated = std::panic::catch_unwind(|| check(&one_panel));
    assert!(repeated.is_err(), "a repeated tick label passed the check");
}

#[test]
fn line_figure_with_a_narrow_range_and_a_long_title() {
    let dir = tempfile::tempdir().unwrap();
    // C values within 0.001 of each other (grammar-depth): ticks need four decimals.
    let points = [1.0076, 1.0079, 1.0081, 1.0084]
        .iter()
        .enumerate()
        .map(|(i, &y)| Point {
            x: (i + 1) as f64,
            y,
            err: 0.0001,
        })
        .collect();
    let figure = Figure {
        panels: vec![Panel {
            title: "user data messages_from_the_speaker_agent.csv / meanings.csv; model seed 0, \
                    reference protocol, 400 validation rows"
                .into(),
            x_label: "depth".into(),
            y_label: "C".into(),
            x_axis: XAxis::Linear { integer: true },
            y_log: false,
            y_range: None,
            series: vec![Series {
                label: "kcomp".into(),
                points,
                reference: false,
                color: 0,
            }],
            reference_line: Some(RefLine::c_one()),
        }],
        caption: "One run per depth.".into(),
    };
    let written = kcomp::plot::line_figure(&dir.path().join("narrow"), &figure).unwrap();
    let svg = svg_of(&written);
    check(&svg);
    // The long title wraps onto a second line instead of running off both sides.
    assert_eq!(titles(&svg).len(), 2, "{:?}", titles(&svg));
}

#[test]
fn scatter_figure() {
    let dir = tempfile::tempdir().unwrap();
    let plot = Scatter {
        title: "Mapping-table entries against the table size".into(),
        x_label: "E".into(),
        y_label: "L(P)".into(),
        x_range: (0.0, 1.0),
        y_range: (0.0, 16.0),
        y_integer: true,
        regions: vec![Region {
            x: (0.0, 0.5),
            y: (0.0, 8.0),
            label: "compositional".into(),
            color: 2,
        }],
        groups: vec![(
            "h".into(),
            0,
            vec![
                LabelledPoint {
                    x: 0.1,
                    y: 4.0,
                    label: "gpt".into(),
                },
                LabelledPoint {
                    x: 0.9,
                    y: 15.0,
                    label: "llama".into(),
                },
            ],
        )],
        caption: "Each point is a model.".into(),
    };
    let written = kcomp::plot::scatter(&dir.path().join("scatter"), &plot).unwrap();
    check(
        written
            .iter()
            .find(|p| p.extension().unwrap() == "svg")
            .unwrap(),
    );
}

#[test]
fn heatmap_figure() {
    let dir = tempfile::tempdir().unwrap();
    let labels: Vec<String> = ["exact", "mapping_mdl", "topsim"]
        .map(String::from)
        .to_vec();
    let cell = |value: f64, n: usize| HeatCell {
        value: Some(value),
        n,
        interval: Some((value - 0.2, (value + 0.1).min(1.0))),
    };
    let none = HeatCell::default();
    let values = vec![
        vec![cell(1.0, 0), cell(0.8, 12), cell(0.5, 2)],
        vec![cell(0.8, 12), cell(1.0, 0), none],
        vec![cell(0.5, 2), none, cell(1.0, 0)],
    ];
    let written = kcomp::plot::heatmap(
        &dir.path().join("agreement"),
        "Rank agreement (Kendall's tau-b)",
        &labels,
        &values,
        "n = 12 datasets.",
    )
    .unwrap();
    let svg = svg_of(&written);
    check_heatmap(&svg);
    let text = body_texts(&svg);
    // A colour bar with its ticks, n and the interval of an informative cell, and the
    // uninformative cell (n = 2) without a value.
    for want in [
        "tau-b",
        "-1",
        "1",
        "n = 12",
        "[0.60, 0.90]",
        "n = 2",
        "too few",
    ] {
        assert!(text.iter().any(|t| t == want), "no `{want}` in {text:?}");
    }
    assert!(
        !text.iter().any(|t| t == "0.50"),
        "n = 2 cell shows a value"
    );
}

/// The SVG among written files.
fn svg_of(written: &[PathBuf]) -> PathBuf {
    written
        .iter()
        .find(|p| p.extension().unwrap() == "svg")
        .unwrap()
        .clone()
}

/// Whether an SVG draws the grey dashed reference line (C = 1).
fn has_reference_line(svg: &Path) -> bool {
    std::fs::read_to_string(svg)
        .unwrap()
        .contains("stroke=\"#5A5A5A\"")
}

/// The trimmed text of every `<text>` of an SVG file.
fn body_texts(svg: &Path) -> Vec<String> {
    texts(&std::fs::read_to_string(svg).unwrap())
        .0
        .into_iter()
        .map(|t| t.4)
        .collect()
}

fn series(label: &str, color: usize, reference: bool, points: Vec<Point>) -> Series {
    Series {
        label: label.into(),
        points,
        reference,
        color,
    }
}

/// 99 values (a vocabulary sweep) with published values, and 17 series on one panel: thin
/// lines, dashed reference, 17 distinct legend entries, no clipping.
#[test]
fn dense_and_many_series() {
    let dir = tempfile::tempdir().unwrap();
    let sweep: Vec<Point> = (2..=100)
        .map(|k| Point {
            x: k as f64,
            y: 1.0 + 1.0 / k as f64,
            err: 0.002,
        })
        .collect();
    let published: Vec<Point> = sweep.iter().map(|p| Point { err: 0.0, ..*p }).collect();
    let many: Vec<Series> = (0..17)
        .map(|i| {
            let pts = (0..5)
                .map(|x| Point {
                    x: x as f64,
                    y: 1.0 + i as f64 + x as f64,
                    err: 0.0,
                })
                .collect();
            series(&format!("estimator {i}"), i, false, pts)
        })
        .collect();
    let figure = Figure {
        panels: vec![
            Panel {
                title: "Lookup tables over vocabulary size K: C(Z), per-sample convention".into(),
                x_label: "vocabulary size K".into(),
                y_label: "C(Z)".into(),
                x_axis: XAxis::Linear { integer: true },
                y_log: false,
                y_range: None,
                series: vec![
                    series("kcomp", 0, false, sweep),
                    series("published", 1, true, published),
                ],
                reference_line: Some(RefLine::c_one()),
            },
            Panel {
                title: "17 estimators".into(),
                x_label: "value".into(),
                y_label: "C".into(),
                x_axis: XAxis::Linear { integer: true },
                y_log: true,
                y_range: None,
                series: many,
                reference_line: Some(RefLine::c_one()),
            },
        ],
        caption: "Mean over 10 seeds.".into(),
    };
    let svg = svg_of(&kcomp::plot::line_figure(&dir.path().join("dense"), &figure).unwrap());
    check(&svg);
    let text = body_texts(&svg);
    assert_eq!(
        text.iter().filter(|t| t.starts_with("estimator ")).count(),
        17
    );
    // The C = 1 line of both panels, explained once in the legend.
    assert_eq!(text.iter().filter(|t| t.starts_with("C = 1")).count(), 1);
    assert!(has_reference_line(&svg));
}

/// Seven layout settings with long names and eight small panels: category labels wrap (the
/// figure stays at most three 760-px panels wide) and panels flow into rows.
#[test]
fn long_categories_and_small_multiples() {
    let dir = tempfile::tempdir().unwrap();
    let names = ["h", "v", "b", "r", "hr", "h-index-shuffle", "holistic"];
    let panel = |i: usize| Panel {
        title: format!("score {i}: lower is better"),
        x_label: "layout setting".into(),
        y_label: "score".into(),
        x_axis: XAxis::Categories(names.iter().map(|s| s.to_string()).collect()),
        y_log: false,
        y_range: None,
        series: vec![series(
            &format!("score {i}"),
            i,
            false,
            (0..7)
                .map(|x| Point {
                    x: x as f64,
                    y: (x * i) as f64,
                    err: 0.5,
                })
                .collect(),
        )],
        reference_line: None,
    };
    let figure = Figure {
        panels: (0..8).map(panel).collect(),
        caption: "Points: mean over 3 seeds; error bars: +-1 sd over seeds.".into(),
    };
    let svg = svg_of(&kcomp::plot::line_figure(&dir.path().join("grid"), &figure).unwrap());
    check(&svg);
    let (_, w, h) = texts(&std::fs::read_to_string(&svg).unwrap());
    assert!(w <= 3.0 * 760.0, "{w} px wide");
    assert!(h >= 3.0 * 470.0, "8 panels in 3 rows, {h} px high");
    let text = body_texts(&svg);
    assert!(text.iter().any(|t| t == "h-index-"), "label not wrapped");
    assert!(text.iter().any(|t| t == "shuffle"));
}

fn kcomp_cli(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kcomp {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The title texts of an SVG: non-numeric text in the top 60 px.
fn titles(svg: &Path) -> Vec<String> {
    texts(&std::fs::read_to_string(svg).unwrap())
        .0
        .into_iter()
        .filter(|t| t.1 < 60.0 && t.2 != "rotated" && t.4.parse::<f64>().is_err())
        .map(|t| t.4)
        .collect()
}

/// `kcomp sweep`: the C figure carries the C = 1 line (in its legend), titles name the generator and parameter
/// (not the config's name `tiny-vocab`), published crosses are not offset from their category.
#[test]
fn sweep_figures_have_the_c_line_and_readable_titles() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tiny.toml");
    std::fs::write(
        &config,
        "name = \"tiny-vocab\"\ngenerator = \"lookup\"\nparameter = \"vocab\"\n\
         values = [2, 4, 8]\nseeds = 2\n[params]\nsamples = 200\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    kcomp_cli(&[
        "sweep",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    for (name, c_lines) in [("c", 1), ("topsim", 0)] {
        let svg = out.join(format!("{name}.svg"));
        check(&svg);
        let text = body_texts(&svg);
        assert_eq!(
            text.iter().filter(|t| t.starts_with("C = 1")).count(),
            c_lines,
            "{name}: {text:?}"
        );
        assert_eq!(has_reference_line(&svg), c_lines == 1, "{name}");
        let t = titles(&svg).join(" ");
        assert!(t.contains("Lookup tables over vocabulary size K"), "{t}");
        assert!(!t.contains("tiny-vocab"), "{t}");
    }
}

/// `kcomp compare` on the protocols panel: the C panel has the C = 1 line, each score its
/// own panel with lower-is-better scores marked, titles describe the family, the agreement
/// heat map has a colour bar and n.
#[test]
fn compare_figures_have_the_c_line_and_marked_directions() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("panel");
    kcomp_cli(&[
        "compare",
        "configs/compare/protocols.toml",
        "--out",
        out.to_str().unwrap(),
    ]);
    let svg = out.join("korbak-protocols_estimators.svg");
    check(&svg);
    let text = body_texts(&svg);
    assert_eq!(text.iter().filter(|t| t.starts_with("C = 1")).count(), 1);
    assert!(has_reference_line(&svg));
    for want in [
        "conflict_count: lower is more compositional",
        "tre: lower is more compositional",
        "topsim: higher is more compositional",
    ] {
        assert!(text.iter().any(|t| t == want), "no `{want}` in {text:?}");
    }
    let t = titles(&svg).join(" ");
    assert!(t.starts_with("Test protocols (Korbak et al.)"), "{t}");
    assert!(!t.contains("korbak-protocols"), "{t}");
    let agreement = out.join("agreement.svg");
    check_heatmap(&agreement);
    let text = body_texts(&agreement);
    assert!(text.iter().any(|t| t == "tau-b"));
    assert!(text.iter().any(|t| t == "n = 21"), "{text:?}");
}

/// `kcomp prequential` on a protocol file: the online scheme's growing chunks get a log x
/// axis, points at the chunk's end.
#[test]
fn prequential_curve_has_a_log_axis_for_growing_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("p");
    kcomp_cli(&[
        "synth",
        "protocol",
        "--kind",
        "trivially-compositional",
        "--colours",
        "6",
        "--shapes",
        "6",
        "--repeats",
        "8",
        "--out",
        data.to_str().unwrap(),
    ]);
    let out = dir.path().join("run");
    kcomp_cli(&[
        "prequential",
        "--w",
        data.join("W.npy").to_str().unwrap(),
        "--z",
        data.join("Z.npy").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let svg = out.join("curve.svg");
    check(&svg);
    let text = body_texts(&svg);
    assert!(
        text.iter()
            .any(|t| t == "rows encoded by the end of the chunk, log scale"),
        "{text:?}"
    );
    assert!(text.iter().any(|t| t == "naive code (no model)"));
}

/// `c_l_vs_h` of an online-scheme sweep: the C = 1 line and a note that the published values
/// come from another protocol.
#[test]
fn h_sweep_figure_says_when_published_values_come_from_another_protocol() {
    use kcomp::estimators::prequential::code::Scheme;
    use kcomp::estimators::prequential::report::{HPoint, write_h_sweep_figure};
    let dir = tempfile::tempdir().unwrap();
    let points: Vec<HPoint> = [(0.0, 17.3, 2.0), (0.5, 4.1, 0.5), (1.0, 1.2, 0.1)]
        .map(|(h, mean, sd)| HPoint { h, mean, sd, n: 3 })
        .to_vec();
    for (scheme, says) in [(Scheme::Online, true), (Scheme::Reference, false)] {
        let stem = dir.path().join(format!("{scheme:?}"));
        let svg = svg_of(&write_h_sweep_figure(&points, scheme, &stem).unwrap());
        check(&svg);
        assert!(has_reference_line(&svg));
        let text = body_texts(&svg).join(" ");
        assert_eq!(
            text.contains("another protocol"),
            says,
            "{scheme:?}: {text}"
        );
    }
}

/// `c_by_setting` with one answer per cell: no error bars, and the caption says so.
#[test]
fn c_by_setting_without_error_bars_at_n_one() {
    use kcomp::datasets::string_grid::Setting;
    use kcomp::programs::mapping_table::ParserMode;
    use kcomp::programs::reports::{Cell, plots::c_by_setting};
    let cell = |model: &str, setting: Setting, c: Vec<f64>| Cell {
        model: model.into(),
        setting,
        dataset: "d".into(),
        scored: c.len(),
        total: c.len(),
        failed: 0,
        empty: 0,
        unscorable: 0,
        l_plus: vec![40.0; c.len()],
        errors: vec![0.0; c.len()],
        log_c: c.clone(),
        in_acc: vec![1.0; c.len()],
        c,
        result_answers: 0,
        result_acc: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let one = vec![
        cell("a", Setting::Horizontal, vec![90.0]),
        cell("a", Setting::Random, vec![10.0]),
        cell("b", Setting::Horizontal, vec![80.0]),
    ];
    let svg = svg_of(&c_by_setting(&one, &dir.path().join("one"), ParserMode::Reference).unwrap());
    check(&svg);
    let text = body_texts(&svg).join(" ");
    assert!(text.contains("n = 1: no error bars"), "{text}");
    // Which parser measured the tables, in the title and the caption.
    assert!(text.contains("reference parser"), "{text}");
    let two = vec![cell("a", Setting::Horizontal, vec![90.0, 70.0])];
    let svg = svg_of(&c_by_setting(&two, &dir.path().join("two"), ParserMode::Robust).unwrap());
    let text = body_texts(&svg).join(" ");
    assert!(text.contains("+-1 standard error of the mean."), "{text}");
    assert!(text.contains("robust parser"), "{text}");
}

/// A grid report's `plane` with 36 points crowded into the small T1 region (six models x six
/// settings near the ideal table): every label is written where no other label is (its box,
/// estimated at 0.5 em per character, overlaps none), inside the image.
#[test]
fn crowded_plane_labels_do_not_overlap() {
    use kcomp::datasets::string_grid::Setting;
    use kcomp::programs::mapping_table::ParserMode;
    use kcomp::programs::reports::{Cell, plots::plane};
    let cell = |m: usize, s: usize, setting: Setting| {
        let l = 40.0 + 3.0 * m as f64 + 1.5 * s as f64;
        let e = 0.25 * ((m + s) % 4) as f64;
        Cell {
            model: format!("model-{m}"),
            setting,
            dataset: "d".into(),
            scored: 2,
            total: 2,
            failed: 0,
            empty: 0,
            unscorable: 0,
            l_plus: vec![l, l],
            errors: vec![e, e],
            log_c: vec![1.0, 1.0],
            in_acc: vec![1.0, 1.0],
            c: vec![90.0, 90.0],
            result_answers: 0,
            result_acc: None,
        }
    };
    let cells: Vec<Cell> = (0..6)
        .flat_map(|m| {
            Setting::ALL
                .iter()
                .enumerate()
                .map(move |(s, &setting)| cell(m, s, setting))
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let svg = svg_of(&plane(&cells, &dir.path().join("plane"), ParserMode::Reference).unwrap());
    check(&svg);
    let names: Vec<&str> = Setting::ALL.iter().map(|s| s.name()).collect();
    let (texts, _, _) = texts(&std::fs::read_to_string(&svg).unwrap());
    let labels: Vec<(f64, f64, f64, f64, String)> = texts
        .iter()
        .filter(|t| t.2 == "start" && t.4.split(", ").all(|p| names.contains(&p)))
        .map(|t| {
            let w = 0.5 * t.3 * t.4.chars().count() as f64;
            (t.0, t.1, t.0 + w, t.1 + 0.7 * t.3, t.4.clone())
        })
        .collect();
    // Every point's setting is written once (points on one spot share a label).
    let written: usize = labels.iter().map(|l| l.4.split(", ").count()).sum();
    assert_eq!(written, 36, "{labels:?}");
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            let overlap = a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3;
            assert!(!overlap, "labels overlap: {a:?} and {b:?}");
        }
    }
}

/// A log C axis whose values run from 0.35 to 20 labels the part below 1 too (0.5, 0.2), not
/// only 1, 2, 5, 10, 20 above the points of a compression estimate at 0.4.
#[test]
fn log_axis_labels_values_below_one() {
    let dir = tempfile::tempdir().unwrap();
    let pts = |ys: &[f64]| {
        ys.iter()
            .enumerate()
            .map(|(i, &y)| Point {
                x: i as f64,
                y,
                err: 0.0,
            })
            .collect()
    };
    let figure = Figure {
        panels: vec![Panel {
            title: "String-to-grid programs over holistic fraction h: C = K(Z)/K(Z|W)".into(),
            x_label: "holistic fraction h".into(),
            y_label: "C (ratio of code lengths)".into(),
            x_axis: XAxis::Linear { integer: false },
            y_log: true,
            y_range: None,
            series: vec![
                series("exact", 0, false, pts(&[20.0, 3.0, 1.5, 1.0])),
                series("compression", 1, false, pts(&[0.9, 0.6, 0.4, 0.35])),
            ],
            reference_line: Some(RefLine::c_one()),
        }],
        caption: "One seed.".into(),
    };
    let svg = svg_of(&kcomp::plot::line_figure(&dir.path().join("log"), &figure).unwrap());
    check(&svg);
    let text = body_texts(&svg);
    for want in ["0.2", "0.5", "1", "2", "5", "10"] {
        assert!(
            text.iter().any(|t| t == want),
            "no tick `{want}` in {text:?}"
        );
    }
}

/// `kcomp compare --w --z --out`: the one-dataset figure names the dataset by its files (not
/// the TOML of its family value) and a single value gets a readable range.
#[test]
fn single_dataset_figure_names_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, mut z) = (String::new(), String::new());
    for i in 0..60 {
        let (a, b) = (i % 4, (i / 4) % 3);
        w.push_str(&format!("{a},{}\n", 4 + b));
        z.push_str(&format!("{a},{b}\n"));
    }
    std::fs::write(dir.path().join("messages.csv"), w).unwrap();
    std::fs::write(dir.path().join("meanings.csv"), z).unwrap();
    let out = dir.path().join("run");
    let p = |f: &str| dir.path().join(f).to_str().unwrap().to_string();
    kcomp_cli(&[
        "compare",
        "--w",
        &p("messages.csv"),
        "--z",
        &p("meanings.csv"),
        "--estimators",
        "mapping_mdl,compression,topsim,conflict_count",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    let svg = out.join("files_estimators.svg");
    check(&svg);
    let text = body_texts(&svg);
    assert!(
        text.iter().any(|t| t == "messages.csv + meanings.csv"),
        "{text:?}"
    );
    assert!(!text.iter().any(|t| t.contains("name =")), "{text:?}");
    // conflict_count is 0: its axis is not +-0.00004.
    assert!(!text.iter().any(|t| t.contains("0.0000")), "{text:?}");
}

/// `kcomp represent`: the training curve and the code length of every sentence space tried.
#[test]
fn represent_figure() {
    let dir = tempfile::tempdir().unwrap();
    // Z = row a of one table + row b of another (4 x 4 objects, 3 dimensions), on a 0.1 grid.
    let mut z = String::new();
    for i in 0..160 {
        let (a, b) = (i % 4, (i / 4) % 4);
        let v = |d: usize| ((a * 7 + d * 3) % 5) as f64 - 2.0 + ((b * 5 + d) % 3) as f64 * 1.5;
        z.push_str(&format!("{:.1},{:.1},{:.1}\n", v(0), v(1), v(2)));
    }
    std::fs::write(dir.path().join("z.csv"), z).unwrap();
    let out = dir.path().join("rep");
    kcomp_cli(&[
        "represent",
        "--z",
        dir.path().join("z.csv").to_str().unwrap(),
        "--precision",
        "0.1",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    check(&out.join("represent.svg"));
}

/// `kcomp pcfgset evaluate --out` on the fixture predictions: the overgeneralisation figure.
#[test]
fn pcfgset_overgeneralisation_figure() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval");
    kcomp_cli(&[
        "pcfgset",
        "evaluate",
        "--predictions",
        "tests/data/pcfgset",
        "--out",
        out.to_str().unwrap(),
    ]);
    let svg = out.join("overgeneralisation.svg");
    check(&svg);
    let t = titles(&svg).join(" ");
    assert!(t.contains("exceptions"), "{t}");
}

/// `kcomp commongen score`: coverage by POS pattern, two panels of percentages.
#[test]
fn commongen_coverage_figure() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cg");
    kcomp_cli(&[
        "commongen",
        "score",
        "tests/data/ordered_commongen/outputs.jsonl",
        "--out",
        out.to_str().unwrap(),
    ]);
    let svg = out.join("coverage_by_pattern.svg");
    check(&svg);
    let text = body_texts(&svg);
    assert!(text.iter().any(|t| t == "Ordered coverage"), "{text:?}");
}
