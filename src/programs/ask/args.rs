//! The command-line options of `kcomp grid ask` (clap derives them here) and their checked
//! form, [`AskOptions`].

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use super::{AskOptions, AskSummary, ChatOptions, Layout, PromptKind};
use crate::datasets::string_grid::prompt::PromptStyle;
use crate::error::{KcompError, Result};

/// `kcomp grid ask`.
#[derive(Debug, clap::Args)]
pub struct AskArgs {
    /// Dataset JSONL file (its name, e.g. k=4_u=2_d=16_type=h, names the answer folder).
    #[arg(long)]
    pub dataset: PathBuf,
    #[command(flatten)]
    pub chat: ChatArgs,
    /// Answer tree root (kcomp layout MODEL/SETTING/<i>.txt unless --published-layout).
    #[arg(long)]
    pub out: PathBuf,
    /// Write result/MODEL/DATASET/<i>.txt (and result_cg8/...) as the published code.
    #[arg(long)]
    pub published_layout: bool,
    /// Rule prompt style: published or stdin.
    #[arg(long, default_value = "published")]
    pub style: String,
    /// Send the result-generation prompt (Table 3) instead of the rule prompt.
    #[arg(long)]
    pub result: bool,
    /// Query index of the result prompt (default: the last sample, as published).
    #[arg(long)]
    pub result_query: Option<usize>,
    /// Only these records (0-based), e.g. 0,3,5 (default all).
    #[arg(long, value_delimiter = ',')]
    pub only: Option<Vec<usize>>,
}

/// The endpoint, model and request options every `ask` command shares (`grid ask`,
/// `commongen ask`), checked into [`ChatOptions`].
#[derive(Debug, clap::Args)]
pub struct ChatArgs {
    /// API base URL; `/chat/completions` is appended.
    #[arg(long)]
    pub base_url: String,
    /// Model name sent to the endpoint (also the answer folder).
    #[arg(long)]
    pub model: String,
    /// Environment variable holding the API key (never written or logged); a missing or
    /// empty key is refused unless --no-auth.
    #[arg(long, default_value = "OPENAI_API_KEY")]
    pub api_key_env: String,
    /// Send no API key (a local server that needs none).
    #[arg(long)]
    pub no_auth: bool,
    /// Sampling temperature (omitted when not given; reasoning models often refuse it).
    #[arg(long, allow_hyphen_values = true)]
    pub temperature: Option<f64>,
    /// max_tokens of the request (omitted when not given; at least 1: a request for no
    /// token has no answer).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: Option<u64>,
    /// Extra request field KEY=VALUE (VALUE as JSON, else a string); repeatable. Not for
    /// fields kcomp sets (model, messages, temperature, max_tokens, stream).
    #[arg(long = "extra", value_name = "KEY=VALUE")]
    pub extra: Vec<String>,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Retries on 429, 5xx, timeouts and connection errors (at most 100).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub retries: u32,
    /// First retry delay in seconds (doubled each retry; a server's Retry-After wins, capped
    /// at 60 s).
    #[arg(long, default_value_t = 2.0)]
    pub backoff: f64,
    /// Timeout of one request in seconds.
    #[arg(long, default_value_t = 600.0)]
    pub request_timeout: f64,
}

fn secs(name: &str, s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| KcompError::param(name, format!("must be a non-negative number, got {s}")))
}

/// `KEY=VALUE` request fields; VALUE as JSON when it parses, else a string.
fn extra_fields(items: &[String]) -> Result<serde_json::Map<String, serde_json::Value>> {
    let mut map = serde_json::Map::new();
    for it in items {
        let (k, v) = it
            .split_once('=')
            .ok_or_else(|| KcompError::param("extra", format!("`{it}` is not KEY=VALUE")))?;
        let value = serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::from(v));
        map.insert(k.to_string(), value);
    }
    super::check_extra(&map)?;
    Ok(map)
}

impl AskArgs {
    /// The checked options.
    pub fn options(self) -> Result<AskOptions> {
        let prompt = match self.result {
            true => PromptKind::Result(self.result_query),
            false => PromptKind::Rule(PromptStyle::parse(&self.style)?),
        };
        Ok(AskOptions {
            dataset: self.dataset,
            records: self.only,
            out: self.out,
            layout: match self.published_layout {
                true => Layout::Published,
                false => Layout::Kcomp,
            },
            prompt,
            concurrency: self.chat.concurrency,
            chat: self.chat.options()?,
        })
    }
}

impl ChatArgs {
    /// The checked endpoint and request options.
    pub fn options(&self) -> Result<ChatOptions> {
        Ok(ChatOptions {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key_env: self.api_key_env.clone(),
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            extra: extra_fields(&self.extra)?,
            timeout: secs("request-timeout", self.request_timeout)?,
            retries: self.retries,
            no_auth: self.no_auth,
            backoff: secs("backoff", self.backoff)?,
        })
    }
}

impl AskSummary {
    /// An error when prompts failed (the answers saved are kept).
    pub fn check(&self) -> Result<()> {
        match self.failed {
            0 => Ok(()),
            n => Err(KcompError::Other(format!(
                "{n} prompts failed (run again to retry them; answers saved are kept)"
            ))),
        }
    }
}

impl fmt::Display for AskSummary {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "asked: done {}, skipped {}, failed {}",
            self.done, self.skipped, self.failed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        ask: AskArgs,
    }

    fn parse(extra: &[&str]) -> Result<AskOptions> {
        let base = [
            "ask",
            "--dataset",
            "d.jsonl",
            "--base-url",
            "http://x",
            "--model",
            "m",
        ];
        let args = base.iter().chain(["--out", "o"].iter()).chain(extra);
        Cli::try_parse_from(args).unwrap().ask.options()
    }

    #[test]
    fn extra_fields_are_json_else_text_and_durations_are_checked() {
        let o = parse(&["--extra", "n=3", "--extra", "effort=high", "--result"]).unwrap();
        assert_eq!(o.chat.extra["n"], serde_json::json!(3));
        assert_eq!(o.chat.extra["effort"], serde_json::json!("high"));
        assert_eq!(o.prompt, PromptKind::Result(None));
        assert_eq!(o.chat.timeout, Duration::from_secs(600));
        assert_eq!(o.chat.backoff, Duration::from_secs(2));
        let e = parse(&["--extra", "novalue"]).unwrap_err().to_string();
        assert!(e.contains("`extra`"), "{e}");
        let e = parse(&["--backoff=-1"]).unwrap_err().to_string();
        assert!(e.contains("`backoff`"), "{e}");
        let e = parse(&["--style", "x"]).unwrap_err().to_string();
        assert!(e.contains("`style`"), "{e}");
    }
}
