//! Configuration files and their command-line overrides: one mechanism for every command.
//!
//! A TOML file (optional) is read into a table, `key.path=value` assignments (`--set`, or the
//! shortcut flags a command declares) are applied to it, and the result is deserialised once
//! into the command's typed configuration, whose own `validate` then checks every parameter.
//! Flags therefore never copy a configuration's fields or defaults: they name its keys;
//! [`ShortcutArgs`] turns a command's table of [`Shortcut`]s into clap flags.

use std::marker::PhantomData;
use std::path::Path;

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use serde::de::DeserializeOwned;

use crate::error::{KcompError, Result};

/// Reads a TOML file into a table; syntax errors name the file and the line.
pub fn read_table(path: &Path) -> Result<toml::Table> {
    let text = crate::io::limits::read_text(path)?;
    parse_table(&text).map_err(|e| KcompError::file(path, e))
}

/// Parses TOML text; the error says on which line.
pub fn parse_table(text: &str) -> std::result::Result<toml::Table, String> {
    toml::from_str::<toml::Table>(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].lines().count().max(1))
            .unwrap_or(0);
        format!("line {line}: {}", e.message().trim())
    })
}

/// A value as written on the command line: a TOML literal (number, boolean, array, inline
/// table, quoted string) when it parses as one, otherwise the bare text as a string.
pub fn parse_value(text: &str) -> toml::Value {
    let text = text.trim();
    match toml::from_str::<toml::Table>(&format!("v = {text}")) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| toml::Value::String(text.into())),
        Err(_) => toml::Value::String(text.into()),
    }
}

/// Sets `key` (dotted path, intermediate tables created) to `value`.
pub fn set_key(table: &mut toml::Table, key: &str, value: toml::Value) -> Result<()> {
    let parts: Vec<&str> = key.split('.').map(str::trim).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(KcompError::param(
            "set",
            format!("`{key}` is not a key path"),
        ));
    }
    let (last, parents) = parts.split_last().expect("split yields one part");
    let mut current = table;
    for part in parents {
        let entry = current
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = entry.as_table_mut().ok_or_else(|| {
            KcompError::param("set", format!("`{key}`: `{part}` is a value, not a table"))
        })?;
    }
    current.insert(last.to_string(), value);
    Ok(())
}

/// Applies one `key.path=value` assignment.
pub fn apply_assignment(table: &mut toml::Table, assignment: &str) -> Result<()> {
    let (key, value) = assignment.split_once('=').ok_or_else(|| {
        KcompError::param(
            "set",
            format!("`{assignment}` is not KEY=VALUE (e.g. prequential.train.lr=0.003)"),
        )
    })?;
    set_key(table, key.trim(), parse_value(value))
}

/// Whether `key` (dotted path) is present.
pub fn has_key(table: &toml::Table, key: &str) -> bool {
    let mut current = table;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        match current.get(*part) {
            Some(toml::Value::Table(t)) if i + 1 < parts.len() => current = t,
            Some(_) => return i + 1 == parts.len(),
            None => return false,
        }
    }
    false
}

/// Deserialises the merged table into `T`; errors name `origin` and the offending key path.
pub fn from_table<T: DeserializeOwned>(table: toml::Table, origin: &str) -> Result<T> {
    serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let path = e.path().to_string();
        let message = e.inner().to_string().trim().replace('\n', " ");
        // toml repeats the path the parameter's name already gives.
        let message = message
            .strip_suffix(&format!(" in `{path}`"))
            .map_or(message.clone(), str::to_string);
        if path == "." {
            KcompError::param(origin, message)
        } else {
            KcompError::param(format!("{origin}: {path}"), message)
        }
    })
}

/// The keys whose values differ between two tables, as `key: old -> new` (at most `limit`).
pub fn differences(old: &toml::Table, new: &toml::Table, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    diff_into("", old, new, &mut out);
    out.truncate(limit);
    out
}

fn diff_into(prefix: &str, old: &toml::Table, new: &toml::Table, out: &mut Vec<String>) {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match (old.get(key), new.get(key)) {
            (Some(toml::Value::Table(a)), Some(toml::Value::Table(b))) => {
                diff_into(&path, a, b, out)
            }
            (a, b) if a != b => {
                let show = |v: Option<&toml::Value>| v.map_or("(unset)".into(), |v| v.to_string());
                out.push(format!("{path}: {} -> {}", show(a), show(b)));
            }
            _ => {}
        }
    }
}

/// How a shortcut flag's text becomes a value.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// One value, read as a TOML literal when it is one (numbers, booleans, arrays).
    Value,
    /// Text kept as it is (paths).
    Text,
    /// A flag without a value: sets `true`.
    Switch,
    /// Comma-separated values as an array (empty text: empty array).
    List,
    /// Comma-separated names as an array of strings.
    Names,
    /// Comma-separated values assigned to the named fields of an inline table, with a fixed
    /// `kind` (for tagged enums such as a schedule).
    Tagged {
        kind: &'static str,
        fields: &'static [&'static str],
    },
}

/// A command-line flag that is a shortcut for a configuration key.
#[derive(Debug, Clone, Copy)]
pub struct Shortcut {
    /// The flag without dashes, e.g. `holistic-fraction`.
    pub flag: &'static str,
    /// The configuration key it sets, e.g. `language.holistic_fraction`.
    pub key: &'static str,
    /// Help text.
    pub help: &'static str,
    pub shape: Shape,
}

impl Shortcut {
    /// The parameter name errors use (`--log-schedule` -> `log_schedule`).
    pub fn param(&self) -> String {
        self.flag.replace('-', "_")
    }

    /// Applies the flag's text to `table`.
    pub fn apply(&self, table: &mut toml::Table, text: &str) -> Result<()> {
        let items = || -> Result<Vec<toml::Value>> {
            if text.trim().is_empty() {
                return Ok(Vec::new());
            }
            text.split(',')
                .map(|item| match parse_value(item) {
                    v @ (toml::Value::Integer(_) | toml::Value::Float(_)) => Ok(v),
                    _ => Err(KcompError::param(
                        self.param(),
                        format!("`{}` is not a valid number", item.trim()),
                    )),
                })
                .collect()
        };
        let value = match self.shape {
            Shape::Value => parse_value(text),
            Shape::Text => toml::Value::String(text.to_string()),
            Shape::Switch => toml::Value::Boolean(true),
            Shape::List => toml::Value::Array(items()?),
            Shape::Names => toml::Value::Array(
                text.split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(|n| toml::Value::String(n.to_string()))
                    .collect(),
            ),
            Shape::Tagged { kind, fields } => {
                let values = items()?;
                if values.len() != fields.len() && fields.len() > 1 {
                    return Err(KcompError::param(
                        self.param(),
                        format!("expected {} comma-separated numbers", fields.len()),
                    ));
                }
                let mut t = toml::Table::new();
                t.insert("kind".into(), toml::Value::String(kind.into()));
                if fields.len() == 1 {
                    t.insert(fields[0].into(), toml::Value::Array(values));
                } else {
                    for (f, v) in fields.iter().zip(values) {
                        t.insert(f.to_string(), v);
                    }
                }
                toml::Value::Table(t)
            }
        };
        set_key(table, self.key, value)
    }
}

/// A command's table of shortcut flags.
pub trait ShortcutTable {
    const TABLE: &'static [Shortcut];

    /// What `--help` says of a flag's default (e.g. `default 0.001`), taken from the
    /// configuration types so that the help never disagrees with the code; `None` says
    /// nothing.
    fn default_note(_shortcut: &Shortcut) -> Option<String> {
        None
    }
}

/// The value at dotted `key` of `table` as a flag would take it: numbers and strings bare,
/// arrays comma-separated, a tagged table (`{kind = "increment", min = 50, step = 50}`) as its
/// kind and fields.
pub fn flag_text(table: &toml::Table, key: &str) -> Option<String> {
    let (path, last) = key.rsplit_once('.').unwrap_or(("", key));
    let mut t = table;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        t = t.get(part)?.as_table()?;
    }
    fn text(v: &toml::Value) -> String {
        match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join(","),
            toml::Value::Table(t) => {
                let kind = t.get("kind").map(text).unwrap_or_default();
                let rest: Vec<String> = t
                    .iter()
                    .filter(|(k, _)| *k != "kind")
                    .map(|(_, v)| text(v))
                    .collect();
                format!("{kind} {}", rest.join(",")).trim().to_string()
            }
            other => other.to_string(),
        }
    }
    t.get(last).map(text)
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
            let help = match T::default_note(shortcut) {
                Some(note) => format!("{} ({note}) [sets {}]", shortcut.help, shortcut.key),
                None => format!("{} [sets {}]", shortcut.help, shortcut.key),
            };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignments_build_nested_tables_and_typed_values() {
        let mut t = parse_table("[train]\nlr = 0.1\n").unwrap();
        apply_assignment(&mut t, "train.lr=0.003").unwrap();
        apply_assignment(&mut t, "model.hidden=[8, 8]").unwrap();
        apply_assignment(&mut t, "order = free").unwrap();
        apply_assignment(&mut t, "warm=true").unwrap();
        assert_eq!(t["train"]["lr"].as_float(), Some(0.003));
        assert_eq!(t["model"]["hidden"].as_array().unwrap().len(), 2);
        assert_eq!(t["order"].as_str(), Some("free"));
        assert_eq!(t["warm"].as_bool(), Some(true));
        assert!(has_key(&t, "model.hidden") && !has_key(&t, "model.emb_dim"));
        assert!(apply_assignment(&mut t, "no_equals").is_err());
        assert!(apply_assignment(&mut t, "train.lr.x=1").is_err());
        assert!(apply_assignment(&mut t, "a..b=1").is_err());
    }

    #[test]
    fn shortcuts_shape_their_values() {
        let mut t = toml::Table::new();
        let hidden = Shortcut {
            flag: "hidden",
            key: "m.hidden",
            help: "",
            shape: Shape::List,
        };
        hidden.apply(&mut t, "256,256").unwrap();
        assert_eq!(t["m"]["hidden"].as_array().unwrap().len(), 2);
        hidden.apply(&mut t, "").unwrap();
        assert!(t["m"]["hidden"].as_array().unwrap().is_empty());
        let err = hidden.apply(&mut t, "8,x").unwrap_err().to_string();
        assert!(err.contains("hidden") && err.contains("`x`"), "{err}");
        let log = Shortcut {
            flag: "log-schedule",
            key: "s",
            help: "",
            shape: Shape::Tagged {
                kind: "log",
                fields: &["min", "n"],
            },
        };
        log.apply(&mut t, "16,8").unwrap();
        assert_eq!(t["s"]["kind"].as_str(), Some("log"));
        assert_eq!(t["s"]["n"].as_integer(), Some(8));
        assert!(
            log.apply(&mut t, "16")
                .unwrap_err()
                .to_string()
                .contains("log_schedule")
        );
    }

    #[test]
    fn differences_name_the_changed_keys() {
        let a = parse_table("x = 1\n[l]\nh = 0.0\nseed = 0\n").unwrap();
        let b = parse_table("x = 1\n[l]\nh = 0.5\nseed = 0\n").unwrap();
        assert_eq!(differences(&a, &b, 5), vec!["l.h: 0.0 -> 0.5".to_string()]);
    }
}
