//! `kcomp grid ask`: sends every record's prompt to an OpenAI-compatible chat-completions
//! endpoint and saves the answers where `grid report` reads them.
//!
//! - [`ChatClient`]: one blocking POST `{base_url}/chat/completions` per prompt (ureq), the
//!   API key from an environment variable (sent as a bearer token, never written or logged;
//!   a missing or empty key is refused unless `--no-auth`), retries with exponential backoff
//!   on 429, 5xx, timeouts and connection errors (a `Retry-After` in seconds is honoured up
//!   to [`MAX_RETRY_AFTER`]), other statuses fail at once. `--extra` cannot replace the
//!   fields kcomp sets ([`OWNED_FIELDS`]).
//! - [`run_ask`] (grid records) and [`ask_prompts`] (any list of prompts, e.g. `kcomp
//!   commongen ask`): locks `--out` and creates the answer folders before the first request (an
//!   unwritable `--out` fails at once); a pool of `concurrency` threads; answers that exist
//!   are skipped (resume); the raw response JSON is saved beside the extracted answer text
//!   (both written atomically, below `--out` only: the model name is one safe path
//!   component); every failure prints its reason (escaped) on stderr, terminal or not;
//! - [`args`]: the command-line options, checked into [`AskOptions`].

pub mod args;

use crate::datasets::string_grid::prompt::{PromptStyle, result_prompt, rule_prompt};
use crate::datasets::string_grid::{Record, read_dataset};
use crate::error::{KcompError, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Which prompt to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// The rule-generation prompt in a style.
    Rule(PromptStyle),
    /// The result-generation prompt (Table 3) for this query index (default: the last).
    Result(Option<usize>),
}

/// Where answers go: kcomp's layout (`OUT/MODEL/SETTING/{i}.txt`, `{i}.result.txt`) or the
/// published one (`OUT/result/MODEL/DATASET/{i}.txt`, `OUT/result_cg8/...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Kcomp,
    Published,
}

/// Endpoint, model and request options.
#[derive(Debug, Clone)]
pub struct ChatOptions {
    /// e.g. `https://api.openai.com/v1` (`/chat/completions` is appended).
    pub base_url: String,
    pub model: String,
    /// Name of the environment variable holding the API key.
    pub api_key_env: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u64>,
    /// Extra top-level request fields passed through (e.g. `reasoning_effort`).
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// Timeout of one request (connect to last byte).
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// Send no Authorization header (a local server that needs no key).
    pub no_auth: bool,
    /// First backoff; doubled after each retry.
    pub backoff: Duration,
}

/// Options of `kcomp grid ask`.
#[derive(Debug, Clone)]
pub struct AskOptions {
    pub dataset: PathBuf,
    /// Records to ask (default all).
    pub records: Option<Vec<usize>>,
    pub out: PathBuf,
    pub layout: Layout,
    pub prompt: PromptKind,
    pub chat: ChatOptions,
    /// Parallel requests.
    pub concurrency: usize,
}

/// Longest wait a server's `Retry-After` can impose before a retry (larger values are cut
/// to this): a hostile or broken server cannot stall a run for hours.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Request fields kcomp sets itself; `--extra` may not replace them (use `--model`,
/// `--temperature`, `--max-tokens`; kcomp reads one JSON response, so no streaming).
pub const OWNED_FIELDS: [&str; 8] = [
    "model",
    "messages",
    "temperature",
    "max_tokens",
    "max_completion_tokens",
    "stream",
    "stream_options",
    "prompt",
];

/// A chat-completions client.
pub struct ChatClient {
    agent: ureq::Agent,
    url: String,
    key: String,
    opts: ChatOptions,
}

/// Why a request failed.
#[derive(Debug)]
enum Failure {
    /// Worth another try (429, 5xx, timeout, connection).
    Retry(String, Option<Duration>),
    /// Not worth another try.
    Fatal(String),
}

/// Checks `--extra` fields: keys must be plain names and none of [`OWNED_FIELDS`].
pub fn check_extra(extra: &serde_json::Map<String, serde_json::Value>) -> Result<()> {
    for k in extra.keys() {
        if k.is_empty()
            || !k
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
        {
            return Err(KcompError::param(
                "extra",
                format!(
                    "`{}` is not a request field name (letters, digits, `_`, `-`, `.`)",
                    crate::io::names::terminal(k)
                ),
            ));
        }
        if OWNED_FIELDS.contains(&k.as_str()) {
            return Err(KcompError::param(
                "extra",
                format!(
                    "`{k}` is set by kcomp (use --model, --temperature or --max-tokens; \
                     streaming is not supported); --extra may not replace it"
                ),
            ));
        }
    }
    Ok(())
}

/// The wait a `Retry-After: SECONDS` header asks for, capped at [`MAX_RETRY_AFTER`]
/// (an HTTP date or garbage: none, the backoff applies).
pub fn retry_after(value: &str) -> Option<Duration> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(MAX_RETRY_AFTER.as_secs_f64())))
}

/// Whether an HTTP status is retried.
pub fn retryable(status: u16) -> bool {
    status == 429 || (500..600).contains(&status)
}

/// The answer text of a chat-completions response: `choices[0].message.content`.
pub fn answer_text(response: &serde_json::Value) -> Option<String> {
    response
        .pointer("/choices/0/message/content")
        .and_then(|c| c.as_str())
        .map(str::to_string)
}

impl ChatClient {
    /// Builds a client; the key must be set and non-empty unless `no_auth`.
    pub fn new(opts: ChatOptions) -> Result<ChatClient> {
        if opts.model.trim().is_empty() {
            return Err(KcompError::param("model", "must not be empty"));
        }
        let base = opts.base_url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(KcompError::param(
                "base-url",
                format!("must start with http:// or https://, got `{base}`"),
            ));
        }
        let key = match opts.no_auth {
            true => String::new(),
            false => std::env::var(&opts.api_key_env).unwrap_or_default(),
        };
        if key.trim().is_empty() && !opts.no_auth {
            return Err(KcompError::param(
                "api-key-env",
                format!(
                    "environment variable {} is not set or empty (pass --no-auth for a server \
                     that needs no key)",
                    crate::io::names::terminal(&opts.api_key_env)
                ),
            ));
        }
        if key.chars().any(|c| c.is_control()) {
            return Err(KcompError::param(
                "api-key-env",
                format!(
                    "environment variable {} holds control characters",
                    crate::io::names::terminal(&opts.api_key_env)
                ),
            ));
        }
        check_extra(&opts.extra)?;
        if let Some(t) = opts.temperature
            && !(t.is_finite() && (0.0..=2.0).contains(&t))
        {
            return Err(KcompError::param("temperature", "must be in [0, 2]"));
        }
        if opts.timeout.is_zero() {
            return Err(KcompError::param("request-timeout", "must be positive"));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(opts.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        Ok(ChatClient {
            agent,
            url: format!("{base}/chat/completions"),
            key,
            opts,
        })
    }

    /// The request body for one prompt.
    pub fn body(&self, prompt: &str) -> serde_json::Value {
        let mut body = serde_json::Map::new();
        body.insert("model".into(), self.opts.model.clone().into());
        body.insert(
            "messages".into(),
            serde_json::json!([{"role": "user", "content": prompt}]),
        );
        if let Some(t) = self.opts.temperature {
            body.insert("temperature".into(), t.into());
        }
        if let Some(m) = self.opts.max_tokens {
            body.insert("max_tokens".into(), m.into());
        }
        for (k, v) in &self.opts.extra {
            body.insert(k.clone(), v.clone());
        }
        serde_json::Value::Object(body)
    }

    fn attempt(&self, body: &str) -> std::result::Result<serde_json::Value, Failure> {
        let mut req = self
            .agent
            .post(&self.url)
            .header("Content-Type", "application/json");
        if !self.key.is_empty() {
            req = req.header("Authorization", format!("Bearer {}", self.key));
        }
        let mut resp = req.send(body).map_err(|e| match e {
            ureq::Error::Timeout(t) => Failure::Retry(format!("timeout ({t})"), None),
            ureq::Error::Io(e) => Failure::Retry(format!("connection: {e}"), None),
            ureq::Error::ConnectionFailed => Failure::Retry("connection failed".into(), None),
            other => Failure::Fatal(other.to_string()),
        })?;
        let status = resp.status().as_u16();
        let wait = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(retry_after);
        let text = resp.body_mut().read_to_string().map_err(|e| match e {
            ureq::Error::Timeout(t) => Failure::Retry(format!("timeout ({t})"), None),
            e => Failure::Retry(format!("reading the body: {e}"), None),
        })?;
        if retryable(status) {
            return Err(Failure::Retry(format!("HTTP {status}"), wait));
        }
        if !(200..300).contains(&status) {
            // The body is the server's text: escaped before it reaches a terminal.
            let head: String = text.chars().take(200).collect();
            let head = crate::io::names::terminal(&head).into_owned();
            return Err(Failure::Fatal(format!("HTTP {status}: {head}")));
        }
        serde_json::from_str(&text).map_err(|e| Failure::Fatal(format!("malformed JSON: {e}")))
    }

    /// Sends one prompt with retries; returns the raw response and the number of attempts.
    pub fn complete(&self, prompt: &str) -> std::result::Result<(serde_json::Value, u32), String> {
        let body = self.body(prompt).to_string();
        let mut delay = self.opts.backoff;
        for attempt in 0..=self.opts.retries {
            match self.attempt(&body) {
                Ok(v) => return Ok((v, attempt + 1)),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(e, wait)) => {
                    if attempt == self.opts.retries {
                        return Err(format!("{e} after {} attempts", attempt + 1));
                    }
                    std::thread::sleep(wait.unwrap_or(delay));
                    delay = delay.saturating_mul(2);
                }
            }
        }
        Err("no attempt made".into())
    }
}

/// A path-safe folder name for a model (`org/model` -> `org_model`; `..` -> `_..`): one
/// component below `--out`, never a hidden file or a parent folder.
pub fn model_folder(model: &str) -> String {
    let plain: String = model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.=".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    crate::io::names::path_component(&plain)
}

/// The answer file of record `i` (the raw response goes beside it, `.response.json`).
pub fn answer_path(opts: &AskOptions, i: usize) -> PathBuf {
    opts.out.join(answer_rel(opts, i))
}

/// [`answer_path`] relative to `--out` (plain components only).
pub fn answer_rel(opts: &AskOptions, i: usize) -> PathBuf {
    let stem = opts
        .dataset
        .file_stem()
        .map(|s| crate::io::names::path_component(&s.to_string_lossy()))
        .unwrap_or_default();
    let model = model_folder(&opts.chat.model);
    let result = matches!(opts.prompt, PromptKind::Result(_));
    match opts.layout {
        Layout::Published => {
            let top = if result { "result_cg8" } else { "result" };
            Path::new(top)
                .join(model)
                .join(stem)
                .join(format!("{i}.txt"))
        }
        Layout::Kcomp => {
            // The published shape's datasets go under their setting's name.
            let folder = crate::datasets::string_grid::Setting::ALL
                .iter()
                .find(|s| crate::programs::reports::layout::published_name(**s) == stem)
                .map_or(stem.clone(), |s| s.name().to_string());
            let file = if result {
                format!("{i}.result.txt")
            } else {
                format!("{i}.txt")
            };
            Path::new(&model).join(folder).join(file)
        }
    }
}

/// Counts of an ask run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AskSummary {
    pub done: usize,
    pub skipped: usize,
    pub failed: usize,
}

fn prompt_of(rec: &Record, kind: PromptKind) -> Result<String> {
    match kind {
        PromptKind::Rule(style) => Ok(rule_prompt(rec, style)),
        PromptKind::Result(q) => result_prompt(rec, q.unwrap_or(rec.input.len().saturating_sub(1))),
    }
}

fn save(out: &Path, rel: &Path, response: &serde_json::Value, answer: &str) -> Result<()> {
    use crate::programs::reports::layout::write_under;
    // `3.txt` -> `3.response.json`, `3.result.txt` -> `3.result.response.json`.
    let raw = rel.with_extension("response.json");
    write_under(out, &raw, &format!("{response:#}\n"))?;
    // The answer last (atomically): its presence marks the record done for resume.
    write_under(out, rel, answer)
}

/// One prompt to send: `label` names it in warnings, `rel` is its answer file below `--out`
/// (plain [`crate::io::names::path_component`]s; the raw response goes beside it).
#[derive(Debug, Clone)]
pub struct PromptJob {
    pub label: String,
    pub rel: PathBuf,
    pub prompt: String,
}

/// Asks every record's prompt (see the module docs).
pub fn run_ask(opts: &AskOptions) -> Result<AskSummary> {
    let records = read_dataset(&opts.dataset)?;
    let wanted: Vec<usize> = match &opts.records {
        Some(v) => {
            if let Some(bad) = v.iter().find(|&&i| i >= records.len()) {
                return Err(KcompError::param(
                    "only",
                    format!("record {bad} does not exist ({} records)", records.len()),
                ));
            }
            v.clone()
        }
        None => (0..records.len()).collect(),
    };
    // Prompts first: a bad query index fails before any request.
    let mut jobs = Vec::new();
    for &i in &wanted {
        jobs.push(PromptJob {
            label: format!("record {i}"),
            rel: answer_rel(opts, i),
            prompt: prompt_of(&records[i], opts.prompt)?,
        });
    }
    ask_prompts(&opts.chat, &opts.out, jobs, opts.concurrency)
}

/// Sends prompts with a pool of `concurrency` threads and saves each answer at its `rel`
/// below `out` (see the module docs: answers that exist are skipped, `out` is locked and
/// checked writable before the first request, failures are counted and printed).
pub fn ask_prompts(
    chat: &ChatOptions,
    out: &Path,
    jobs: Vec<PromptJob>,
    concurrency: usize,
) -> Result<AskSummary> {
    if concurrency == 0 || concurrency > 256 {
        return Err(KcompError::param("concurrency", "must be in 1..=256"));
    }
    let total = jobs.len();
    let mut summary = AskSummary::default();
    let mut todo = Vec::new();
    for job in jobs {
        if out.join(&job.rel).is_file() {
            summary.skipped += 1;
        } else {
            todo.push(job);
        }
    }
    let client = ChatClient::new(chat.clone())?;
    // Before the first request: one run per --out, and the answer folders exist and take a
    // file (an unwritable --out fails now, not after every request was paid for).
    let _lock = crate::io::files::lock_dir(out)?;
    if let Some(job) = todo.first() {
        let folder = job.rel.parent().unwrap_or(Path::new(""));
        let dir = crate::io::files::create_dirs_under(out, folder)?;
        tempfile::tempfile_in(&dir)
            .map_err(|e| KcompError::file(&dir, format!("not writable: {e}")))?;
    }
    let bar = crate::progress::bar(total as u64, "prompts", "");
    bar.inc(summary.skipped as u64);
    let (done, failed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let message = |d: usize, f: usize| format!("done {d}, skipped {}, failed {f}", summary.skipped);
    bar.set_message(message(0, 0));
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..concurrency.min(todo.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = todo.get(k) else {
                        break;
                    };
                    let outcome = client.complete(&job.prompt).and_then(|(resp, _)| {
                        let text = answer_text(&resp)
                            .ok_or_else(|| "no choices[0].message.content".to_string())?;
                        save(out, &job.rel, &resp, &text).map_err(|e| e.to_string())
                    });
                    match outcome {
                        Ok(()) => {
                            done.fetch_add(1, Ordering::SeqCst);
                        }
                        Err(e) => {
                            failed.fetch_add(1, Ordering::SeqCst);
                            // Printed with or without a terminal (println of a hidden bar
                            // prints nothing); the reason may carry the server's text.
                            let e = crate::io::names::terminal(&e).into_owned();
                            let label = &job.label;
                            bar.suspend(|| {
                                crate::progress::note(&format!("warning: {label}: {e}"))
                            });
                        }
                    }
                    bar.set_message(message(
                        done.load(Ordering::SeqCst),
                        failed.load(Ordering::SeqCst),
                    ));
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish_and_clear();
    summary.done = done.into_inner();
    summary.failed = failed.into_inner();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_answers() {
        assert!(retryable(429) && retryable(500) && retryable(503));
        assert!(!retryable(400) && !retryable(401) && !retryable(200));
        let v = serde_json::json!({"choices": [{"message": {"content": "hi"}}]});
        assert_eq!(answer_text(&v).as_deref(), Some("hi"));
        assert_eq!(answer_text(&serde_json::json!({})), None);
        assert_eq!(model_folder("org/model v2"), "org_model_v2");
        assert_eq!(model_folder(".."), "_..");
        assert_eq!(retry_after("100000"), Some(MAX_RETRY_AFTER));
        assert_eq!(retry_after(" 2 "), Some(Duration::from_secs(2)));
        for bad in ["-1", "nan", "inf", "Wed, 21 Oct 2015 07:28:00 GMT", ""] {
            assert_eq!(retry_after(bad), None, "{bad}");
        }
        assert_eq!(model_folder("../../x"), "_.._.._x");
        let mut extra = serde_json::Map::new();
        extra.insert("reasoning_effort".into(), "high".into());
        assert!(check_extra(&extra).is_ok());
        for k in ["messages", "model", "temperature", "stream", "a b", ""] {
            let mut bad = extra.clone();
            bad.insert(k.into(), 1.into());
            let e = check_extra(&bad).unwrap_err().to_string();
            assert!(e.contains("`extra`"), "{k}: {e}");
        }
    }
}
