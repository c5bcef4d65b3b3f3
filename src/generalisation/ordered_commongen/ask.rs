//! `kcomp commongen ask`: the benchmark's prompts through kcomp's chat-completions client
//! ([`crate::programs::ask`]: retries, Retry-After cap, key handling, concurrency, resume).
//! Answers go to `OUT/MODEL/tT/<prompt id>.txt`, the raw response beside each.

use std::path::{Path, PathBuf};

use super::data::Prompt;
use crate::error::Result;
use crate::programs::ask::{AskSummary, ChatOptions, PromptJob, ask_prompts, model_folder};

/// The answer file of a prompt below `--out` (plain components only).
pub fn answer_rel(model: &str, prompt: &Prompt) -> PathBuf {
    Path::new(&model_folder(model))
        .join(format!("t{}", prompt.template))
        .join(format!("{}.txt", prompt.id))
}

/// Asks every prompt; answers that exist are skipped.
pub fn ask(
    chat: &ChatOptions,
    prompts: &[Prompt],
    out: &Path,
    concurrency: usize,
) -> Result<AskSummary> {
    let jobs = prompts
        .iter()
        .map(|p| PromptJob {
            label: format!("prompt {}", p.id),
            rel: answer_rel(&chat.model, p),
            prompt: p.prompt.clone(),
        })
        .collect();
    ask_prompts(chat, out, jobs, concurrency)
}
