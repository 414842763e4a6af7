//! The player's configuration file: the default relay and name, so neither has to be typed each game.
//!
//! A TOML file read from `$FAIRDECK_CONFIG`, else `$XDG_CONFIG_HOME/fairdeck/config.toml`, else
//! `$HOME/.config/fairdeck/config.toml`:
//!
//! ```toml
//! relay = "wss://relay.example.org/v1"
//! name = "Ada"
//! ca = "/home/ada/club-ca.pem"
//! untap_draw = true
//! suite = "modp2048"
//! ```
//!
//! Every key is optional. A missing file at the usual place is an empty configuration; a file that
//! `FAIRDECK_CONFIG` names must exist. A malformed file, an unknown key or a bad value is an error that
//! names the file and the line, never a silent default.

use std::ffi::OsString;
use std::ops::Range;
use std::path::{Path, PathBuf};

use fairdeck_shared::crypto::Suite;
use fairdeck_shared::wire::MAX_TEXT_LEN;
use serde::Deserialize;

/// Where the configuration file is read from, and what it holds, for `--help`.
pub fn help() -> String {
    let here = match config_path(|name| std::env::var_os(name)) {
        Some(place) => place.path.display().to_string(),
        None => "none (neither HOME nor XDG_CONFIG_HOME is set)".to_string(),
    };
    format!(
        "\
Configuration file, read by host and join: {here}
  ($FAIRDECK_CONFIG, else $XDG_CONFIG_HOME/fairdeck/config.toml, else ~/.config/fairdeck/config.toml; TOML)
  relay = \"wss://…\"               the default relay (--relay, then FAIRDECK_RELAY, come first)
  name = \"…\"                      your default name (--name comes first)
  ca = \"/path/ca.pem\"             also trust this CA's certificates for wss:// relays (--ca comes first)
  untap_draw = true               when the opponent passes the turn to you, untap your cards and draw one
  suite = \"modp2048\"              hosting: the suite the cards are locked in (--suite comes first)"
    )
}

/// The variable that names the configuration file, overriding the usual place.
pub(crate) const PATH_VARIABLE: &str = "FAIRDECK_CONFIG";

/// The settings read from the configuration file; `None` where the file says nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// The relay's WebSocket URL (`ws://` or `wss://`).
    pub relay: Option<String>,
    /// The player's name shown to the opponent.
    pub name: Option<String>,
    /// A PEM file of CA certificates trusted for `wss://` relays besides the public roots (a relative path in
    /// the file is taken from the file's folder).
    pub ca: Option<PathBuf>,
    /// When the opponent passes the turn to you, untap your cards and draw one for you (`untap_draw = true`).
    pub untap_draw: bool,
    /// Hosting: the suite the cards are locked in (`suite = "modp2048"`).
    pub suite: Option<Suite>,
}

/// Where the configuration file is, and whether the user named it (then it must exist).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConfigPath {
    pub path: PathBuf,
    pub explicit: bool,
}

/// Why the configuration file cannot be used. Each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("the configuration file {path} (named by {PATH_VARIABLE}) does not exist")]
    Missing { path: String },
    #[error("cannot read the configuration file {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("configuration file {path}, line {line}: {message}")]
    Invalid { path: String, line: usize, message: String },
}

/// The configuration file's place from the environment (`get` reads a variable), or `None` when
/// neither `XDG_CONFIG_HOME` nor `HOME` says where the user's files are.
pub(crate) fn config_path(get: impl Fn(&str) -> Option<OsString>) -> Option<ConfigPath> {
    // Empty or relative values are ignored, as the XDG base directory specification asks.
    let absolute = |name: &str| get(name).map(PathBuf::from).filter(|path| path.is_absolute());
    if let Some(path) = get(PATH_VARIABLE).filter(|value| !value.is_empty()) {
        return Some(ConfigPath { path: PathBuf::from(path), explicit: true });
    }
    let base = absolute("XDG_CONFIG_HOME").or_else(|| absolute("HOME").map(|home| home.join(".config")))?;
    Some(ConfigPath { path: base.join("fairdeck").join("config.toml"), explicit: false })
}

/// Reads the configuration file of this process's environment (see [`config_path`]).
pub fn load_from_env() -> Result<Config, ConfigError> {
    match config_path(|name| std::env::var_os(name)) {
        Some(place) => load(&place),
        None => Ok(Config::default()),
    }
}

/// Reads and checks the file at `place`; a missing file is an empty configuration unless it was named.
pub(crate) fn load(place: &ConfigPath) -> Result<Config, ConfigError> {
    let path = place.path.display().to_string();
    match crate::file::read_text_at_most(&place.path, crate::file::SETTINGS_BYTES) {
        Ok(text) => parse(&place.path, &text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && !place.explicit => Ok(Config::default()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Err(ConfigError::Missing { path }),
        Err(source) => Err(ConfigError::Read { path, source }),
    }
}

/// Parses and checks the text of the configuration file at `path` (named in errors).
pub(crate) fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let invalid = |span: Option<Range<usize>>, message: String| ConfigError::Invalid {
        path: path.display().to_string(),
        line: line_of(text, span.map_or(0, |span| span.start)),
        message,
    };
    let raw: RawConfig = toml::from_str(text).map_err(|error| invalid(error.span(), error.message().to_string()))?;
    if let Some(relay) = &raw.relay
        && !(relay.get_ref().starts_with("ws://") || relay.get_ref().starts_with("wss://"))
    {
        let message = format!("relay {:?} is not a WebSocket URL (ws://… or wss://…)", relay.get_ref());
        return Err(invalid(Some(relay.span()), message));
    }
    if let Some(name) = &raw.name {
        let text = name.get_ref();
        // The opponent's engine refuses a longer name.
        if text.trim().is_empty() || MAX_TEXT_LEN < text.len() || text.chars().any(char::is_control) {
            let message = format!("name must be 1 to {MAX_TEXT_LEN} bytes of printable text, not only spaces");
            return Err(invalid(Some(name.span()), message));
        }
    }
    if let Some(ca) = &raw.ca
        && ca.get_ref().trim().is_empty()
    {
        return Err(invalid(Some(ca.span()), "ca must name a PEM file of CA certificates".to_string()));
    }
    let suite = raw
        .suite
        .as_ref()
        .map(|suite| suite.get_ref().parse::<Suite>().map_err(|e| invalid(Some(suite.span()), e.to_string())));
    Ok(Config {
        suite: suite.transpose()?,
        relay: raw.relay.map(toml::Spanned::into_inner),
        name: raw.name.map(toml::Spanned::into_inner),
        // A relative path is read from the configuration file's folder, wherever fairdeck is started.
        ca: raw.ca.map(|ca| path.parent().unwrap_or(Path::new("")).join(ca.into_inner())),
        untap_draw: raw.untap_draw.unwrap_or(false),
    })
}

/// One setting by precedence: the command line's or its environment variable's (`given`, as clap
/// resolves them), else the file's, else the built-in `default`.
pub fn choose(given: Option<String>, from_file: Option<&str>, default: &str) -> String {
    given.or_else(|| from_file.map(str::to_string)).unwrap_or_else(|| default.to_string())
}

/// The file's layout; spans locate a bad value's line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    relay: Option<toml::Spanned<String>>,
    name: Option<toml::Spanned<String>>,
    ca: Option<toml::Spanned<String>>,
    untap_draw: Option<bool>,
    suite: Option<toml::Spanned<String>>,
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset].iter().filter(|&&byte| byte == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Config, ConfigError> {
        parse(Path::new("/home/ada/.config/fairdeck/config.toml"), text)
    }

    /// The line and message of an invalid file.
    fn invalid(text: &str) -> (usize, String) {
        match parsed(text) {
            Err(ConfigError::Invalid { line, message, path }) => {
                assert_eq!(path, "/home/ada/.config/fairdeck/config.toml");
                (line, message)
            }
            other => panic!("{text:?} should be invalid, got {other:?}"),
        }
    }

    #[test]
    fn reads_relay_and_name() {
        let config = parsed("# mine\nrelay = \"wss://relay.example.org/v1\"\nname = \"Ada\"\n").unwrap();
        assert_eq!(config.relay.as_deref(), Some("wss://relay.example.org/v1"));
        assert_eq!(config.name.as_deref(), Some("Ada"));
        assert_eq!(parsed("").unwrap(), Config::default());
        assert_eq!(parsed("relay = 'ws://127.0.0.1:9/v1'").unwrap().name, None);
    }

    #[test]
    fn reads_untap_draw_as_a_yes_or_no() {
        assert!(parsed("untap_draw = true").unwrap().untap_draw);
        assert!(!parsed("untap_draw = false").unwrap().untap_draw);
        assert!(!parsed("").unwrap().untap_draw);
        assert_eq!(invalid("name = \"Ada\"\nuntap_draw = \"yes\"").0, 2);
    }

    #[test]
    fn reads_a_ca_file_relative_to_the_configuration() {
        let config = parsed("ca = \"club-ca.pem\"").unwrap();
        assert_eq!(config.ca, Some(PathBuf::from("/home/ada/.config/fairdeck/club-ca.pem")));
        assert_eq!(parsed("ca = '/etc/ca.pem'").unwrap().ca, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(invalid("name = \"Ada\"\nca = \" \"").0, 2);
        assert_eq!(invalid("ca = 7").0, 1);
    }

    #[test]
    fn reads_the_hosts_suite_by_its_name() {
        assert_eq!(parsed("suite = \"modp2048\"").unwrap().suite, Some(Suite::Modp2048));
        assert_eq!(parsed("suite = 'ristretto255'").unwrap().suite, Some(Suite::Ristretto255));
        assert_eq!(parsed("").unwrap().suite, None);
        let (line, message) = invalid("name = \"Ada\"\nsuite = \"rsa\"");
        assert_eq!(line, 2);
        assert!(message.contains("unknown suite \"rsa\""), "{message}");
        assert_eq!(invalid("suite = 2048").0, 1);
    }

    #[test]
    fn errors_name_the_line() {
        let (line, message) = invalid("relay = \"wss://a/v1\"\n\nrelya = \"wss://b/v1\"\n");
        assert_eq!(line, 3);
        assert!(message.contains("relya"), "{message}");
        let (line, _) = invalid("name = \"Ada\"\nrelay = wss://a\n");
        assert_eq!(line, 2);
        let (line, message) = invalid("name = \"Ada\"\nrelay = \"https://a/v1\"\n");
        assert_eq!(line, 2);
        assert!(message.contains("WebSocket"), "{message}");
        assert_eq!(invalid("\nrelay = 7171").0, 2);
        assert_eq!(invalid("name = \"  \"").0, 1);
        assert_eq!(invalid(&format!("name = \"{}\"", "a".repeat(MAX_TEXT_LEN + 1))).0, 1);
        assert_eq!(invalid("[relay]\nurl = \"ws://a\"").0, 1);
        assert_eq!(invalid("relay = \"ws://a\"\nrelay = \"ws://b\"").0, 2);
        assert_eq!(invalid("name = \"\u{7}\"").0, 1);
        let error = parsed("relay = [").unwrap_err().to_string();
        assert!(error.starts_with("configuration file /home/ada/.config/fairdeck/config.toml, line 1: "), "{error}");
    }

    #[test]
    fn the_path_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| OsString::from(value))
        };
        let place = |pairs| config_path(env(pairs)).map(|p| (p.path.display().to_string(), p.explicit));
        let usual = |path: &str| Some((path.to_string(), false));
        assert_eq!(place(&[("HOME", "/home/ada")]), usual("/home/ada/.config/fairdeck/config.toml"));
        assert_eq!(place(&[("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "/xdg")]), usual("/xdg/fairdeck/config.toml"));
        assert_eq!(
            place(&[("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "relative")]),
            usual("/home/ada/.config/fairdeck/config.toml")
        );
        assert_eq!(
            place(&[("HOME", "/home/ada"), ("XDG_CONFIG_HOME", "/xdg"), ("FAIRDECK_CONFIG", "my.toml")]),
            Some(("my.toml".to_string(), true))
        );
        assert_eq!(place(&[("FAIRDECK_CONFIG", "")]), None);
        assert_eq!(place(&[]), None);
    }

    #[test]
    fn missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent.toml");
        assert_eq!(load(&ConfigPath { path: path.clone(), explicit: false }).unwrap(), Config::default());
        let error = load(&ConfigPath { path: path.clone(), explicit: true }).unwrap_err();
        assert!(matches!(error, ConfigError::Missing { .. }), "{error:?}");
        assert!(error.to_string().contains(&path.display().to_string()), "{error}");
        std::fs::write(&path, b"name = \"\xff\"").unwrap();
        let error = load(&ConfigPath { path: path.clone(), explicit: false }).unwrap_err();
        assert!(matches!(error, ConfigError::Read { .. }), "{error:?}");
        std::fs::write(&path, "name = \"Ada\"").unwrap();
        assert_eq!(load(&ConfigPath { path, explicit: true }).unwrap().name.as_deref(), Some("Ada"));
    }

    #[test]
    fn precedence() {
        let file = Config {
            relay: Some("wss://file/v1".into()),
            name: Some("Ada".into()),
            ca: None,
            untap_draw: false,
            suite: None,
        };
        let default = "ws://127.0.0.1:7171/v1";
        assert_eq!(choose(Some("ws://flag/v1".into()), file.relay.as_deref(), default), "ws://flag/v1");
        assert_eq!(choose(None, file.relay.as_deref(), default), "wss://file/v1");
        assert_eq!(choose(None, None, default), default);
        assert_eq!(choose(Some("Bob".into()), file.name.as_deref(), "host"), "Bob");
        assert_eq!(choose(None, file.name.as_deref(), "host"), "Ada");
    }
}
