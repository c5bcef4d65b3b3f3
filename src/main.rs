fn main() {
    // SIGPIPE stays ignored (Rust's default): a sandboxed program that exits without reading
    // its stdin must give kcomp EPIPE, a status, never a signal that kills the whole report
    // (the "lose the whole report" attack, docs/security-tests.md). A closed stdout
    // (`kcomp ... | head`) still ends kcomp quietly: the CLI's
    // one printing path (`cli::write_stdout`) returns EPIPE as an error, which
    // `main_with_exit_code` turns into the shell's 141; any other write error (a full disk)
    // is a one-line error with status 2.
    std::process::exit(kcomp::cli::main_with_exit_code());
}
