fn main() {
    std::process::exit(kcomp::cli::main_with_exit_code());
}
