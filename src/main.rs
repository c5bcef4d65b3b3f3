fn main() {
    // Die quietly on a closed pipe (`kcomp ... | head`) as Unix tools do, instead of
    // panicking in println!.
    // SAFETY: resetting a signal disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(kcomp::cli::main_with_exit_code());
}
