//! Shortcut flags: command-line flags generated from a configuration's table of
//! [`Shortcut`]s, so a command never copies its configuration's fields or defaults.

use std::marker::PhantomData;

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

use crate::config::{Shape, Shortcut};

/// A command's table of shortcut flags.
pub trait ShortcutTable {
    const TABLE: &'static [Shortcut];
}

/// The shortcut flags given, in command-line order.
#[derive(Debug, Clone)]
pub struct ShortcutArgs<T> {
    pub given: Vec<(&'static Shortcut, String)>,
    table: PhantomData<T>,
}

impl<T: ShortcutTable> FromArgMatches for ShortcutArgs<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given: Vec<(usize, &'static Shortcut, String)> = Vec::new();
        for shortcut in T::TABLE {
            let Some(index) = matches.index_of(shortcut.flag) else {
                continue;
            };
            let text = match shortcut.shape {
                Shape::Switch if matches.get_flag(shortcut.flag) => "true".to_string(),
                Shape::Switch => continue,
                _ => matches
                    .get_one::<String>(shortcut.flag)
                    .cloned()
                    .unwrap_or_default(),
            };
            given.push((index, shortcut, text));
        }
        given.sort_by_key(|g| g.0);
        Ok(ShortcutArgs {
            given: given.into_iter().map(|(_, s, t)| (s, t)).collect(),
            table: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<T: ShortcutTable> Args for ShortcutArgs<T> {
    fn augment_args(mut cmd: Command) -> Command {
        for shortcut in T::TABLE {
            let help = format!("{} [sets {}]", shortcut.help, shortcut.key);
            let arg = Arg::new(shortcut.flag).long(shortcut.flag).help(help);
            cmd = cmd.arg(match shortcut.shape {
                Shape::Switch => arg.action(ArgAction::SetTrue),
                _ => arg
                    .value_name("VALUE")
                    .allow_hyphen_values(true)
                    .action(ArgAction::Set),
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
