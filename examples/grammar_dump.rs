//! Temporary: dump a grammar dataset (W, Z grid, trees) as JSON for prototyping.
use kcomp::datasets::grammar::{cyk::Tree, generate, GrammarParams, Composition};
fn tree_json(t: &Tree) -> serde_json::Value {
    match t {
        Tree::Leaf { word, pos } => serde_json::json!({"w": word, "s": pos}),
        Tree::Node { rule, lhs, left, right } => serde_json::json!({"r": rule, "s": lhs, "l": tree_json(left), "x": tree_json(right)}),
    }
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let p = GrammarParams {
        samples: a[1].parse().unwrap(),
        vocab: a[2].parse().unwrap(),
        width: a[3].parse().unwrap(),
        depth: a[4].parse().unwrap(),
        composition: if a[5] == "tensor" { Composition::Tensor } else { Composition::Linear },
        seed: a[6].parse().unwrap(),
        length: a.get(7).map(|s| s.parse().unwrap()).unwrap_or(16),
        dim: a.get(8).map(|s| s.parse().unwrap()).unwrap_or(10),
        ..Default::default()
    };
    let g = generate(&p).unwrap();
    let out = serde_json::json!({
        "w": g.w.outer_iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
        "z": g.z.outer_iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
        "trees": g.trees.iter().map(tree_json).collect::<Vec<_>>(),
        "rules": g.grammar.rules.iter().map(|r| (r.left, r.right, r.lhs)).collect::<Vec<_>>(),
        "k_f": g.terms.k_f, "k_zwf": g.terms.k_z_given_wf, "k_z": g.terms.k_z(),
    });
    println!("{}", out);
}
