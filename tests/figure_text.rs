//! Every figure kind (line figure, scatter, heat map): the SVG's text has no duplicated tick
//! labels on an axis and nothing drawn outside the image (clipped). Run with
//! KCOMP_KEEP_FIGURES=DIR to keep the figures for a look.

use std::path::Path;

use kcomp::plot::{Figure, LabelledPoint, Panel, Point, Region, Scatter, Series, XAxis};

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
    // Tick labels: numeric texts sharing an x (a y axis) or a y (an x axis) must differ.
    let numeric: Vec<&Text> = texts
        .iter()
        .filter(|t| t.4.trim().parse::<f64>().is_ok())
        .collect();
    for (i, a) in numeric.iter().enumerate() {
        for b in &numeric[i + 1..] {
            let same_axis = (a.0 - b.0).abs() < 0.5 || (a.1 - b.1).abs() < 0.5;
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
        for ext in ["svg", "png"] {
            let p = svg_path.with_extension(ext);
            std::fs::copy(&p, Path::new(&keep).join(p.file_name().unwrap())).unwrap();
        }
    }
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
        }],
        caption: "One run per depth.".into(),
    };
    let written = kcomp::plot::line_figure(&dir.path().join("narrow"), &figure).unwrap();
    check(
        written
            .iter()
            .find(|p| p.extension().unwrap() == "svg")
            .unwrap(),
    );
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
    let values = vec![
        vec![Some(1.0), Some(0.8), Some(0.5)],
        vec![Some(0.8), Some(1.0), None],
        vec![Some(0.5), None, Some(1.0)],
    ];
    let written = kcomp::plot::heatmap(
        &dir.path().join("agreement"),
        "Rank agreement (Kendall's tau-b)",
        &labels,
        &values,
        "n = 12 datasets.",
    )
    .unwrap();
    check(
        written
            .iter()
            .find(|p| p.extension().unwrap() == "svg")
            .unwrap(),
    );
}
