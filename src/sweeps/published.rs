//! Published per-sample C(Z) means of seed 004's Figure 2 (10 seeds each), to compare against.
//!
//! Sources: the means quoted in shared/notes/representational-compositionality.md, and for the
//! other points the means of the authors' published per-seed data
//! (papers/theory/data/*.csv in their repository), rounded to 6 decimals.

/// Where the published values come from, as printed under the comparison table.
pub const SOURCE: &str = "Published = the mean over 10 seeds of seed 004's per-seed Figure 2 \
     data (the authors' papers/theory/data/*.csv; the notes' quoted means where they give one), \
     rounded to 6 decimals; the table is src/sweeps/published.rs.";

/// Published mean of per-sample C for a sweep name and value, if any.
pub fn published_mean(sweep: &str, value: &str) -> Option<f64> {
    table()
        .iter()
        .find(|(name, _)| *name == sweep)
        .and_then(|(_, points)| points.iter().find(|(v, _)| *v == value))
        .map(|(_, c)| *c)
}

/// Whether the point is one the notes quote explicitly (the acceptance set).
pub fn quoted_in_notes(sweep: &str, value: &str) -> bool {
    matches!(
        (sweep, value),
        ("lookup-length", "16")
            | ("lookup-length", "64")
            | ("lookup-dim", "16")
            | ("lookup-dim", "160")
            | ("lookup-ngram", "2")
            | ("lookup-ngram", "4")
            | ("grammar-width", "3")
    )
}

type Points = &'static [(&'static str, f64)];

fn table() -> &'static [(&'static str, Points)] {
    &[
        (
            "lookup-length",
            &[
                ("1", 1.001165),
                ("2", 1.003768),
                ("4", 1.012204),
                ("8", 1.039800),
                ("16", 1.126551),
                ("32", 1.375572),
                ("64", 2.022004),
            ],
        ),
        (
            "lookup-vocab",
            &[
                ("2", 1.104824),
                ("3", 1.132518),
                ("4", 1.140850),
                ("5", 1.142433),
                ("6", 1.142223),
                ("7", 1.138064),
                ("8", 1.134521),
                ("9", 1.129972),
                ("10", 1.126551),
                ("11", 1.122513),
                ("12", 1.118677),
                ("13", 1.114799),
                ("14", 1.111301),
                ("15", 1.108276),
                ("16", 1.104978),
                ("17", 1.101610),
                ("18", 1.098959),
                ("19", 1.096141),
                ("20", 1.093736),
                ("21", 1.091724),
                ("22", 1.089419),
                ("23", 1.086952),
                ("24", 1.084834),
                ("25", 1.082857),
                ("26", 1.081394),
                ("27", 1.079683),
                ("28", 1.077875),
                ("29", 1.076273),
                ("30", 1.074494),
                ("31", 1.073147),
                ("32", 1.071684),
                ("33", 1.070298),
                ("34", 1.069036),
                ("35", 1.067706),
                ("36", 1.066822),
                ("37", 1.065308),
                ("38", 1.064325),
                ("39", 1.063073),
                ("40", 1.061955),
                ("41", 1.061105),
                ("42", 1.060082),
                ("43", 1.059308),
                ("44", 1.058362),
                ("45", 1.057491),
                ("46", 1.056648),
                ("47", 1.055789),
                ("48", 1.054991),
                ("49", 1.054209),
                ("50", 1.053499),
                ("51", 1.052734),
                ("52", 1.052100),
                ("53", 1.051597),
                ("54", 1.050588),
                ("55", 1.050195),
                ("56", 1.049581),
                ("57", 1.048891),
                ("58", 1.048355),
                ("59", 1.047730),
                ("60", 1.047004),
                ("61", 1.046547),
                ("62", 1.046174),
                ("63", 1.045490),
                ("64", 1.044812),
                ("65", 1.044561),
                ("66", 1.043791),
                ("67", 1.043434),
                ("68", 1.043054),
                ("69", 1.042506),
                ("70", 1.042042),
                ("71", 1.041716),
                ("72", 1.041297),
                ("73", 1.040858),
                ("74", 1.040518),
                ("75", 1.040132),
                ("76", 1.039804),
                ("77", 1.039232),
                ("78", 1.039017),
                ("79", 1.038614),
                ("80", 1.038305),
                ("81", 1.037879),
                ("82", 1.037580),
                ("83", 1.037310),
                ("84", 1.036910),
                ("85", 1.036564),
                ("86", 1.036316),
                ("87", 1.035931),
                ("88", 1.035709),
                ("89", 1.035396),
                ("90", 1.035060),
                ("91", 1.034802),
                ("92", 1.034518),
                ("93", 1.034254),
                ("94", 1.033977),
                ("95", 1.033648),
                ("96", 1.033484),
                ("97", 1.033091),
                ("98", 1.032828),
                ("99", 1.032634),
                ("100", 1.032400),
            ],
        ),
        (
            "lookup-dim",
            &[
                ("16", 1.504314),
                ("32", 1.251644),
                ("48", 1.169249),
                ("64", 1.126551),
                ("80", 1.101496),
                ("96", 1.084573),
                ("112", 1.072446),
                ("128", 1.063250),
                ("144", 1.055933),
                ("160", 1.050584),
            ],
        ),
        (
            "lookup-ngram",
            &[
                ("1", 1.104824),
                ("2", 1.051363),
                ("4", 1.008878),
                ("8", 1.000294),
                ("16", 1.000001),
            ],
        ),
        (
            "grammar-width",
            &[
                ("1", 1.012469),
                ("2", 1.009215),
                ("3", 1.006423),
                ("4", 1.004510),
            ],
        ),
        (
            "grammar-depth",
            &[
                ("1", 1.008831),
                ("2", 1.006423),
                ("3", 1.005047),
                ("4", 1.004156),
            ],
        ),
        (
            "grammar-composition",
            &[("linear", 1.006423), ("tensor", 1.037996)],
        ),
    ]
}

/// Published C^L(Z) (mean, sd over 5 seeds) of emergent languages from iterated learning, seed
/// 004's emergent-language experiment (quoted in the design notes, representational-compositionality.md).
pub const EMERGENT_C_L_ITERATED: (f64, f64) = (1.946, 0.330);
/// The same without iterated learning.
pub const EMERGENT_C_L_NO_ITERATED: (f64, f64) = (1.017, 0.008);
