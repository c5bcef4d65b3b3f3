fn main() {
    // SIGPIPE stays ignored (Rust's default): a sandboxed program that exits without reading
    // its stdin must give kcomp EPIPE, a status, never a signal that kills the whole report
    // (the "lose the whole report" attack, docs/security-tests.md). A closed stdout (`kcomp ... | head`) still ends kcomp quietly: println!
    // panics on EPIPE, and this hook turns that one panic into the exit a shell expects.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout")
            && msg.contains(&format!("os error {}", libc::EPIPE))
        {
            // 128 + SIGPIPE, what the shell reported before.
            std::process::exit(128 + libc::SIGPIPE);
        }
        default_hook(info);
    }));
    std::process::exit(kcomp::cli::main_with_exit_code());
}
