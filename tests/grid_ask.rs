//! `kcomp grid ask` end to end against a chat-completions server on 127.0.0.1 that this test
//! runs: the first request gets a 429, the second a 500, the third answers too slowly (the
//! client times out), the rest are answered with a program that memorises the samples of the
//! prompt. generate -> ask -> report must give the expected table, and a second ask skips
//! every record (resume).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Reads one HTTP/1.1 request; returns its headers (lower-case) and body.
fn read_request(stream: &mut TcpStream) -> Option<(Vec<String>, String)> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end().to_string();
        if line.is_empty() {
            break;
        }
        headers.push(line.to_ascii_lowercase());
    }
    let len = headers
        .iter()
        .find_map(|h| h.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some((headers, String::from_utf8_lossy(&body).into_owned()))
}

fn respond(stream: &mut TcpStream, status: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// A program printing the grid of every sample in the prompt (published prompt format).
fn memorising_answer(prompt: &str) -> String {
    let lines: Vec<&str> = prompt.lines().collect();
    let mut entries = Vec::new();
    let mut i = 0;
    while i + 3 < lines.len() {
        if lines[i] == "Input:" && lines[i + 2] == "Output:" {
            let grid = lines[i + 3..i + 7].join("\n");
            entries.push(format!("{:?}: {:?}", lines[i + 1], grid));
            i += 7;
        } else {
            i += 1;
        }
    }
    format!(
        "Sure.\n```python\nT = {{{}}}\nprint(T[input().strip()])\n```\n",
        entries.join(", ")
    )
}

/// Serves until the test ends; counts requests and keeps the Authorization headers seen.
fn serve(listener: TcpListener, count: Arc<AtomicUsize>, auth: Arc<Mutex<Vec<String>>>) {
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        let count = count.clone();
        let auth = auth.clone();
        std::thread::spawn(move || {
            let Some((headers, body)) = read_request(&mut stream) else {
                return;
            };
            let n = count.fetch_add(1, Ordering::SeqCst);
            auth.lock().unwrap().extend(
                headers
                    .iter()
                    .filter(|h| h.starts_with("authorization"))
                    .cloned(),
            );
            let req: serde_json::Value = serde_json::from_str(&body).unwrap();
            match n {
                0 => respond(
                    &mut stream,
                    "429 Too Many Requests",
                    "{\"error\": \"slow down\"}",
                ),
                1 => respond(
                    &mut stream,
                    "500 Internal Server Error",
                    "{\"error\": \"oops\"}",
                ),
                2 => {
                    std::thread::sleep(Duration::from_millis(2500));
                    respond(&mut stream, "200 OK", "{}");
                }
                _ => {
                    let prompt = req["messages"][0]["content"].as_str().unwrap();
                    assert_eq!(req["model"], "local-model");
                    assert_eq!(req["temperature"], 0.0);
                    assert_eq!(req["reasoning_effort"], "high");
                    let content = if prompt.contains("Only output the answer") {
                        // The result prompt: the grid of the first shot (right only if the
                        // query's grid is the same).
                        prompt
                            .lines()
                            .skip(3)
                            .take(4)
                            .collect::<Vec<_>>()
                            .join("\n")
                    } else {
                        memorising_answer(prompt)
                    };
                    let resp = serde_json::json!({
                        "id": "x", "object": "chat.completion",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]
                    });
                    respond(&mut stream, "200 OK", &resp.to_string());
                }
            }
        });
    }
}

fn kcomp(args: &[&str], key: Option<&str>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kcomp"));
    c.args(args);
    match key {
        Some(k) => c.env("KCOMP_TEST_KEY", k),
        None => c.env_remove("KCOMP_TEST_KEY"),
    };
    c.output().unwrap()
}

#[test]
fn generate_ask_report_against_a_local_server() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let auth = Arc::new(Mutex::new(Vec::new()));
    {
        let (count, auth) = (count.clone(), auth.clone());
        std::thread::spawn(move || serve(listener, count, auth));
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let file = data.join("k=4_u=2_d=16_type=h.jsonl");
    let o = kcomp(
        &[
            "grid",
            "generate",
            "--compat",
            "rgp",
            "--setting",
            "h",
            "--records",
            "3",
            "-o",
            file.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success());
    let answers = tmp.path().join("answers");
    let ask = |extra: &[&str]| {
        let mut args = vec![
            "grid",
            "ask",
            "--dataset",
            file.to_str().unwrap(),
            "--base-url",
            &url,
            "--model",
            "local-model",
            "--api-key-env",
            "KCOMP_TEST_KEY",
            "--out",
            answers.to_str().unwrap(),
            "--temperature",
            "0",
            "--extra",
            "reasoning_effort=high",
            "--concurrency",
            "1",
            "--retries",
            "3",
            "--backoff",
            "0.01",
            "--request-timeout",
            "1",
        ];
        args.extend_from_slice(extra);
        kcomp(&args, Some("sk-test-secret"))
    };
    let o = ask(&[]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(err.contains("done 3, skipped 0, failed 0"), "{err}");
    assert!(!err.contains("sk-test-secret"), "{err}");
    // 429, 500 and the timeout cost three extra requests.
    assert_eq!(count.load(Ordering::SeqCst), 6);
    assert!(
        auth.lock()
            .unwrap()
            .iter()
            .all(|h| h == "authorization: bearer sk-test-secret")
    );
    let dir = answers.join("local-model/h");
    for i in 0..3 {
        assert!(dir.join(format!("{i}.txt")).is_file());
        let raw = std::fs::read_to_string(dir.join(format!("{i}.response.json"))).unwrap();
        assert!(
            raw.contains("chat.completion") && !raw.contains("sk-test"),
            "{raw}"
        );
    }
    // Resume: nothing is asked again.
    let o = ask(&[]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("done 0, skipped 3, failed 0"));
    assert_eq!(count.load(Ordering::SeqCst), 6);
    // The result-generation prompt, for Table 3.
    let o = ask(&["--result"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(dir.join("0.result.txt").is_file() && dir.join("0.result.response.json").is_file());
    // A missing key is refused before any request for a non-local endpoint.
    let o = kcomp(
        &[
            "grid",
            "ask",
            "--dataset",
            file.to_str().unwrap(),
            "--base-url",
            "https://example.invalid/v1",
            "--model",
            "m",
            "--api-key-env",
            "KCOMP_TEST_KEY",
            "--out",
            answers.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("KCOMP_TEST_KEY is not set"));

    // Report: memorised answers are right on all 16 samples and fill the table: C = 0.
    let out = tmp.path().join("report");
    let o = kcomp(
        &[
            "grid",
            "report",
            answers.to_str().unwrap(),
            "--data",
            data.to_str().unwrap(),
            "--no-plots",
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let recs = kcomp::datasets::string_grid::read_dataset(&file).unwrap();
    let right = recs.iter().filter(|r| r.output[0] == r.output[15]).count();
    let acc = format!("{:.2}", 100.0 * right as f64 / 3.0);
    let row = summary.lines().nth(1).unwrap();
    assert_eq!(
        row,
        format!(
            "local-model,h,3,3,0,0,0,320.00,0.00,0.00,0.00,0.00,0.00,0.00,100.00,3,{acc},k=4_u=2_d=16_type=h"
        )
    );
    let per = std::fs::read_to_string(out.join("per_answer.csv")).unwrap();
    assert_eq!(
        per.lines().filter(|l| l.contains(",T2,")).count(),
        3,
        "{per}"
    );
}

/// A server answering every request with `status` and `body`; counts the requests and keeps
/// their Authorization headers.
fn fixed_server(
    status: &'static str,
    body: String,
) -> (String, Arc<AtomicUsize>, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let auth = Arc::new(Mutex::new(Vec::new()));
    let (c, a) = (count.clone(), auth.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let Some((headers, _)) = read_request(&mut stream) else {
                continue;
            };
            c.fetch_add(1, Ordering::SeqCst);
            a.lock().unwrap().extend(
                headers
                    .iter()
                    .filter(|h| h.starts_with("authorization"))
                    .cloned(),
            );
            respond(&mut stream, status, &body);
        }
    });
    (url, count, auth)
}

fn one_record_dataset(dir: &std::path::Path) -> std::path::PathBuf {
    let file = dir.join("k=4_u=2_d=16_type=h.jsonl");
    let o = kcomp(
        &[
            "grid",
            "generate",
            "--compat",
            "rgp",
            "--setting",
            "h",
            "--records",
            "1",
            "-o",
            file.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success());
    file
}

fn ask_args<'a>(file: &'a str, url: &'a str, model: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "grid",
        "ask",
        "--dataset",
        file,
        "--base-url",
        url,
        "--model",
        model,
        "--api-key-env",
        "KCOMP_TEST_KEY",
        "--out",
        out,
        "--retries",
        "0",
    ]
}

fn one_line_error(o: &std::process::Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle), "{needle}: {err}");
}

#[test]
fn ask_refuses_hostile_options_and_names_before_any_request() {
    let tmp = tempfile::tempdir().unwrap();
    let file = one_record_dataset(tmp.path());
    let file = file.to_str().unwrap();
    // The response names another model: it must not steer where the answer goes.
    let resp = serde_json::json!({
        "model": "../../escaped",
        "choices": [{"message": {"content": "```python\nprint(1)\n```"}}]
    });
    let (url, count, auth) = fixed_server("200 OK", resp.to_string());
    let out = tmp.path().join("a/b/out");
    let outs = out.to_str().unwrap();

    // --extra may not replace what kcomp sends.
    for extra in ["messages=[]", "model=other", "temperature=9", "stream=true"] {
        let mut args = ask_args(file, &url, "m", outs);
        args.extend(["--extra", extra]);
        one_line_error(&kcomp(&args, Some("k")), "extra");
    }
    // No key or an empty key: refused unless --no-auth (even for a local server).
    one_line_error(
        &kcomp(&ask_args(file, &url, "m", outs), None),
        "KCOMP_TEST_KEY",
    );
    one_line_error(
        &kcomp(&ask_args(file, &url, "m", outs), Some("")),
        "--no-auth",
    );
    // An --out that cannot hold files (a regular file) fails before the first request.
    let blocker = tmp.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    one_line_error(
        &kcomp(
            &ask_args(file, &url, "m", blocker.to_str().unwrap()),
            Some("k"),
        ),
        "file",
    );
    assert_eq!(count.load(Ordering::SeqCst), 0, "a request was sent");

    // --model .. stays inside --out; --no-auth sends no key even when one is set.
    let mut args = ask_args(file, &url, "..", outs);
    args.push("--no-auth");
    let o = kcomp(&args, Some("sk-should-not-be-sent"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert!(auth.lock().unwrap().is_empty());
    assert!(out.join("_../h/0.txt").is_file());
    let above: Vec<_> = std::fs::read_dir(tmp.path().join("a/b"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(above, vec![std::ffi::OsString::from("out")]);
    assert!(!tmp.path().join("a/h").exists() && !tmp.path().join("escaped").exists());
}

#[test]
fn ask_prints_escaped_failure_reasons_without_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let file = one_record_dataset(tmp.path());
    let (url, count, _) = fixed_server(
        "400 Bad Request",
        "{\"error\": \"\u{1b}]0;pwned\u{7}\u{1b}[2Jbad model\"}".to_string(),
    );
    let out = tmp.path().join("out");
    let o = kcomp(
        &ask_args(file.to_str().unwrap(), &url, "m", out.to_str().unwrap()),
        Some("k"),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    // stderr is a pipe here: the reason is still printed, escaped.
    assert!(err.contains("warning: record 0: HTTP 400"), "{err}");
    assert!(
        err.contains("bad model") && err.contains("\\u{1b}"),
        "{err}"
    );
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(!out.join("m/h/0.txt").exists());
}
