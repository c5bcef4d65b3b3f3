//! Ordered CommonGen (Sakai, Kamigaito, Watanabe, ACL 2025): the prompts, the scores of
//! hand-checked fixture outputs (tests/data/ordered_commongen/outputs.jsonl: inflections,
//! repeated words, near misses, an empty output, one output given for two orders), a
//! shared form between two concepts (an order tie), and `ask` -> `score` end to end against
//! a chat-completions server on 127.0.0.1 that this test runs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use kcomp::generalisation::ordered_commongen::data::{
    self, ConceptSet, Lexicon, Pos, concept_sets, orders,
};
use kcomp::generalisation::ordered_commongen::score::{
    read_outputs, score_output, score_outputs, sentence_bleu, words,
};

const FIXTURE: &str = "tests/data/ordered_commongen/outputs.jsonl";

fn close(a: Option<f64>, b: f64) {
    let a = a.expect("a value");
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

fn kcomp(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kcomp"))
        .args(args)
        .output()
        .unwrap()
}

/// `kcomp commongen score OUTPUTS --out OUT [extra]`.
fn score(outputs: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "commongen",
        "score",
        outputs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    kcomp(&args)
}

/// A refusal: status 2 and one line of stderr holding every one of `why`.
fn refused(o: &std::process::Output, why: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(why.iter().all(|w| err.contains(w)), "{err}");
}

#[test]
fn prompts_cover_every_order_and_template() {
    let all = data::prompts(None, None).unwrap();
    assert_eq!(all.len(), 192 * 24 * 6);
    // Every set: 24 distinct orders of its four concepts, each under the six templates.
    let mut ids: Vec<&str> = all.iter().map(|p| p.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 27_648);
    let p = &all[6 * 23 + 5]; // set 0, order 23 (reversed), template 5
    assert_eq!(p.concepts, ["throw", "frisbee", "dog", "catch"]);
    assert_eq!(p.pattern, "VNNV");
    assert_eq!(
        p.prompt,
        "Generate a sentence that includes all the following words in the specified order: throw, frisbee, dog, catch"
    );
    // The POS patterns of the 4,608 ordered sets: 454 nouns and 314 verbs over 192 sets.
    let nouns: usize = concept_sets()
        .iter()
        .map(|s| s.pos.iter().filter(|&&p| p == Pos::Noun).count())
        .sum();
    assert_eq!(nouns, 454);
    // Ordered sets per POS pattern (prompts / 6): from the sets' noun/verb mixes in
    // CommonGen-lite (2 all-noun, 74 with one verb, 109 with two, 6 with three, 1 all-verb).
    let mut per_pattern = std::collections::BTreeMap::<String, usize>::new();
    for p in &all {
        *per_pattern.entry(p.pattern.clone()).or_default() += 1;
    }
    let want = [
        ("NNNN", 48),
        ("NNNV", 444),
        ("NNVN", 444),
        ("NVNN", 444),
        ("VNNN", 444),
        ("NNVV", 436),
        ("NVNV", 436),
        ("NVVN", 436),
        ("VNNV", 436),
        ("VNVN", 436),
        ("VVNN", 436),
        ("NVVV", 36),
        ("VNVV", 36),
        ("VVNV", 36),
        ("VVVN", 36),
        ("VVVV", 24),
    ];
    assert_eq!(per_pattern.len(), 16);
    for (p, n) in want {
        assert_eq!(per_pattern[p], 6 * n, "{p}");
    }
    let o = kcomp(&["commongen", "prompts", "--sets", "1", "--templates", "2"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text.lines().count(), 24);
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["id"], "s001-o00-t2");
    assert_eq!(first["pattern"], "NNVN");
    refused(
        &kcomp(&["commongen", "prompts", "--sets", "192"]),
        &["`sets`"],
    );
}

#[test]
fn inflections_repeats_and_near_misses() {
    let sets = concept_sets();
    let lex = Lexicon::builtin();
    let o = orders();
    let s0 = &sets[0]; // catch_V dog_N frisbee_N throw_V
    let sc = |text: &str, order: [usize; 4]| score_output(text, s0, &order, &lex);
    // Irregular past (threw), plurals, -ing: all four, in order.
    let a = sc(
        "Catching the dogs' frisbees, I threw them back.",
        [0, 1, 2, 3],
    );
    assert_eq!((a.found, a.in_order), (4, 4));
    // The same text for another order: covered, longest in-order run 3.
    let b = sc(
        "Catching the dogs' frisbees, I threw them back.",
        [0, 1, 3, 2],
    );
    assert_eq!(
        (b.found, b.in_order, b.covered(), b.ordered()),
        (4, 3, true, false)
    );
    // A repeated concept: the second "frisbee" completes dog < throw < frisbee < catch.
    let c = sc(
        "The frisbee: a dog throws the frisbee and catches it.",
        [1, 3, 2, 0],
    );
    assert!(c.ordered());
    assert_eq!(c.realised, Some([2, 1, 3, 0])); // by first occurrence
    // Words that only start like a concept are not it.
    let d = sc("A catcher with dogma throws frisbees.", [2, 0, 1, 3]);
    assert_eq!((d.found, d.in_order), (2, 1));
    assert_eq!(sc("", [0, 1, 2, 3]).found, 0);
    // Irregular participles and nouns from the lemma table.
    let e = sc("Thrown, caught: dogs and a frisbee.", [3, 0, 1, 2]);
    assert!(e.ordered());
    assert!(lex.words_of("feet").contains(&"foot".to_string()));
    assert!(lex.words_of("sat").contains(&"sit".to_string()));
    assert_eq!(o.len(), 24);
    assert_eq!(
        words("Dog's  frisbee-throw!"),
        ["dog", "s", "frisbee", "throw"]
    );
}

#[test]
fn a_word_shared_by_two_concepts_serves_one_position() {
    // An order tie: "lay" is a form of both lie and lay. Present for both (coverage w/o
    // order counts each concept on its own), but one word cannot fill two positions.
    let lex =
        Lexicon::parse("lie\tlies lying lay lain\nlay\tlays laying laid\nbed\tbeds\nbook\tbooks\n")
            .unwrap();
    let set = ConceptSet {
        index: 0,
        id: "tie".into(),
        words: ["lie", "lay", "bed", "book"].map(String::from),
        pos: [Pos::Verb, Pos::Verb, Pos::Noun, Pos::Noun],
    };
    let s = score_output("lay bed book", &set, &[0, 1, 2, 3], &lex);
    assert_eq!(
        (s.found, s.in_order, s.covered(), s.ordered()),
        (4, 3, true, false)
    );
    let s = score_output("lay laid bed books", &set, &[0, 1, 2, 3], &lex);
    assert!(s.ordered());
    // Either concept may take the shared word: lay (as lay) < lie (lies).
    let s = score_output("lay lies bed book", &set, &[1, 0, 2, 3], &lex);
    assert!(s.ordered());
}

#[test]
fn bleu_matches_sacrebleu() {
    // sacrebleu 2.4.3 sentence_score(tokenize="none") of the same word sequences.
    let b = sentence_bleu(&words("dog runs"), &words("the dog catches the frisbee"));
    assert!((b - 11.15650800742149).abs() < 1e-9, "{b}");
    // No n-gram in common: 0 (sacreBLEU's early stop), not a smoothed positive value.
    assert_eq!(
        sentence_bleu(&words("the dog ran"), &words("a catcher throws")),
        0.0
    );
    assert_eq!(sentence_bleu(&words("the dog ran"), &[]), 0.0);
}

#[test]
fn fixture_scores_are_the_hand_checked_ones() {
    let sets = concept_sets();
    let outs = read_outputs(Path::new(FIXTURE), &sets).unwrap();
    assert_eq!(outs.len(), 33);
    let s = score_outputs(&outs, &sets, &Lexicon::builtin()).unwrap();
    assert_eq!(s.models, ["model-a", "model-b"]);
    // model-a: 9 outputs, 6 hold all concepts, 4 in order; 27 of 36 concepts present,
    // in-order runs 4+3+4+1+4+1+0+3+4 = 24 of 36.
    let a = &s.overall[0];
    assert_eq!(a.outputs, 9);
    close(a.coverage_pct, 600.0 / 9.0);
    close(a.ordered_coverage_pct, 400.0 / 9.0);
    close(a.ordered_rate_pct, 400.0 / 6.0);
    close(a.concept_coverage_pct, 75.0);
    close(a.concept_ordered_coverage_pct, 2400.0 / 36.0);
    // model-b: one sentence for all 24 orders, in the order dog catch frisbee throw only;
    // the in-order runs of the 24 orders against one are the longest increasing
    // subsequences of the permutations of 4: 1x1 + 13x2 + 9x3 + 1x4 = 58.
    let b = &s.overall[1];
    close(b.coverage_pct, 100.0);
    close(b.ordered_coverage_pct, 100.0 / 24.0);
    close(b.ordered_rate_pct, 100.0 / 24.0);
    close(b.concept_ordered_coverage_pct, 5800.0 / 96.0);
    // Diversity. model-a: (set 0, t0) 6 distinct of 7, 3 realised orders; (set 1, t2) the
    // same text twice. Pairwise-BLEU of the first group from sacrebleu 2.4.3.
    let (da, db) = (&s.diversity[0], &s.diversity[1]);
    assert_eq!(
        (da.groups, da.complete_groups, da.identical_groups),
        (2, 0, 1)
    );
    close(da.diverse_rate_pct, 100.0 * (6.0 / 7.0 + 0.5) / 2.0);
    close(da.distinct_orders_mean, 2.0);
    close(da.pairwise_bleu, (8.468123791853712 + 100.0) / 2.0);
    assert_eq!(
        (db.groups, db.complete_groups, db.identical_groups),
        (1, 1, 1)
    );
    close(db.diverse_rate_pct, 100.0 / 24.0);
    close(db.distinct_orders_mean, 1.0);
    close(db.pairwise_bleu, 100.0);
    // POS patterns of set 0 (catch V, dog N, frisbee N, throw V) for model-b: NVNV has 4
    // orders, one of them (dog catch frisbee throw) followed; NNVV 4 orders, none.
    let pat = |m: &str, p: &str| {
        s.patterns
            .iter()
            .find(|r| r.model == m && r.group == p)
            .unwrap()
            .clone()
    };
    assert_eq!(pat("model-b", "NVNV").outputs, 4);
    close(pat("model-b", "NVNV").ordered_coverage_pct, 25.0);
    close(pat("model-b", "NNVV").ordered_coverage_pct, 0.0);
    // model-a's set-1 outputs: pattern NNVN (food front sit table) and NVNN.
    close(pat("model-a", "NVNN").ordered_coverage_pct, 100.0);
    close(pat("model-a", "NNVN").ordered_coverage_pct, 0.0);
    assert_eq!(
        s.missing,
        [
            ("model-a".to_string(), 27_639),
            ("model-b".to_string(), 27_624)
        ]
    );
}

#[test]
fn model_names_are_data() {
    // A model name with a newline, a table bar and a formula trigger reaches the report
    // escaped: one Markdown row, a CSV cell a spreadsheet will not run.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("o.jsonl");
    let line = serde_json::json!({"model": "=evil|x\nrow", "id": "s000-o00-t0", "output": "Catch dog frisbee throw."});
    std::fs::write(&file, format!("{line}\n")).unwrap();
    let out = tmp.path().join("r");
    let o = score(&file, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("=evil|x\\nrow"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| =evil\\|x row | 1 | 100.0 | 100.0 | 100.0 |"),
        "{md}"
    );
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    // The newline is escaped too: a CSV cell carries no control character.
    assert!(csv.contains("'=evil|x\\nrow,all,1,"), "{csv}");
}

#[test]
fn score_writes_the_report_and_refuses_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report");
    let fixture = Path::new(FIXTURE);
    let o = score(fixture, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [
        "summary.csv",
        "templates.csv",
        "pos_patterns.csv",
        "diversity.csv",
        "per_output.csv",
        "scores.json",
        "report.md",
        "coverage_by_pattern.png",
        "coverage_by_pattern.svg",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(
        summary
            .starts_with("model,group,outputs,coverage_pct,ordered_coverage_pct,ordered_rate_pct")
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scores.json")).unwrap()).unwrap();
    assert!(json["definitions"]["ordered_rate_pct"].is_string());
    assert_eq!(json["overall"][1]["coverage_pct"], 100.0);
    // The same command again rewrites its folder; other outputs need --force.
    assert!(score(fixture, &out, &[]).status.success());
    let copy = tmp.path().join("copy.jsonl");
    std::fs::copy(FIXTURE, &copy).unwrap();
    refused(&score(&copy, &out, &[]), &["--force"]);
    assert!(score(&copy, &out, &["--force"]).status.success());
    // Bad inputs: one line naming the file or field, status 2.
    let bad = tmp.path().join("bad.jsonl");
    for (line, why) in [
        (
            "{\"model\": \"m\", \"id\": \"s999-o00-t0\", \"output\": \"x\"}",
            "`id`",
        ),
        (
            "{\"model\": \"m\", \"set\": 0, \"template\": 0, \"concepts\": [\"dog\"], \"output\": \"x\"}",
            "`concepts`",
        ),
        (
            "{\"model\": \"m\", \"set\": 0, \"template\": 9, \"order\": 0, \"output\": \"x\"}",
            "`template`",
        ),
        ("{\"id\": \"s000-o00-t0\", \"output\": \"x\"}", "`model`"),
        ("not json", "not JSON"),
    ] {
        std::fs::write(&bad, format!("{line}\n")).unwrap();
        refused(&score(&bad, &out, &[]), &[why, "bad.jsonl"]);
    }
    std::fs::write(&bad, "\n").unwrap();
    refused(&score(&bad, &out, &[]), &["holds no outputs"]);
    let dup = "{\"model\": \"m\", \"id\": \"s000-o00-t0\", \"output\": \"x\"}\n";
    std::fs::write(&bad, dup.repeat(2)).unwrap();
    refused(&score(&bad, &out, &[]), &["two outputs"]);
}

/// Reads one HTTP/1.1 request body.
fn read_body(stream: &mut TcpStream) -> Option<String> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut len = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim_end().to_ascii_lowercase();
        if l.is_empty() {
            break;
        }
        if let Some(v) = l.strip_prefix("content-length:") {
            len = v.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    String::from_utf8(body).ok()
}

fn respond(stream: &mut TcpStream, status: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The first request gets a 503 with a Retry-After of 0 s; every other one is answered with
/// the prompt's concepts in the specified order, except the reversed order of set 0, which
/// gets them in CommonGen-lite's order.
fn serve(listener: TcpListener, count: Arc<AtomicUsize>) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let count = count.clone();
        std::thread::spawn(move || {
            let Some(body) = read_body(&mut stream) else {
                return;
            };
            if count.fetch_add(1, Ordering::SeqCst) == 0 {
                let _ = write!(
                    stream,
                    "HTTP/1.1 503 Busy\r\nRetry-After: 0\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
                );
                return;
            }
            let req: serde_json::Value = serde_json::from_str(&body).unwrap();
            let prompt = req["messages"][0]["content"].as_str().unwrap();
            let concepts = prompt
                .lines()
                .next()
                .unwrap()
                .trim_start_matches("Concepts: ");
            let text = if concepts == "throw, frisbee, dog, catch" {
                "A dog can catch a frisbee if you throw it.".to_string()
            } else {
                format!("Then {}.", concepts.replace(", ", " and "))
            };
            let resp = serde_json::json!({
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]
            });
            respond(&mut stream, "200 OK", &resp.to_string());
        });
    }
}

#[test]
fn ask_then_score_against_a_local_server() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    {
        let count = count.clone();
        std::thread::spawn(move || serve(listener, count));
    }
    let tmp = tempfile::tempdir().unwrap();
    let answers = tmp.path().join("answers");
    let ask = || {
        kcomp(&[
            "commongen",
            "ask",
            "--base-url",
            &url,
            "--model",
            "org/local model",
            "--no-auth",
            "--sets",
            "0",
            "--templates",
            "0",
            "--concurrency",
            "2",
            "--retries",
            "2",
            "--backoff",
            "0.01",
            "--out",
            answers.to_str().unwrap(),
        ])
    };
    let o = ask();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(err.contains("done 24, skipped 0, failed 0"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 25); // one 503, retried
    let first = answers.join("org_local_model/t0/s000-o00-t0.txt");
    assert_eq!(
        std::fs::read_to_string(&first).unwrap(),
        "Then catch and dog and frisbee and throw."
    );
    assert!(first.with_extension("response.json").is_file());
    // Resume: nothing asked again.
    let o = ask();
    assert!(String::from_utf8_lossy(&o.stderr).contains("done 0, skipped 24, failed 0"));
    assert_eq!(count.load(Ordering::SeqCst), 25);
    let out = tmp.path().join("report");
    let o = score(&answers, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sets = concept_sets();
    let outs = read_outputs(&answers, &sets).unwrap();
    let s = score_outputs(&outs, &sets, &Lexicon::builtin()).unwrap();
    // 24 outputs all covering, 23 in order (the reversed order got the original order).
    let r = &s.overall[0];
    assert_eq!((r.model.as_str(), r.outputs), ("org_local_model", 24));
    close(r.coverage_pct, 100.0);
    close(r.ordered_coverage_pct, 2300.0 / 24.0);
    close(s.diversity[0].diverse_rate_pct, 100.0);
    close(s.diversity[0].distinct_orders_mean, 23.0);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| org_local_model | 24 | 100.0 | 95.8 | 95.8 |"),
        "{md}"
    );
}
