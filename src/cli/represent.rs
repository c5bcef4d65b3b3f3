//! `kcomp represent`: parses the command line and prints; the run lives in
//! `representation::report`.

use crate::error::Result;
use crate::representation::report::{RepresentArgs, to_text};

/// Runs `kcomp represent`.
pub fn run(args: RepresentArgs) -> Result<()> {
    let run = args.resolve()?;
    let out = run.run(!args.quiet && !args.json)?;
    match args.json {
        true => println!("{}", out.json),
        false => print!("{}", to_text(&out)),
    }
    Ok(())
}
