//! A player's key: the one form of a player's name that identifies them in a store, and the
//! only form of it that reaches a file path. Checked once, here: a name that could leave a
//! directory or hide what it says is refused, whatever front end it came from.

use std::path::{Path, PathBuf};

/// Why a name cannot be a player's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid player name {name:?}: {why}")]
pub struct InvalidName {
    /// The name as given.
    pub name: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// The longest key, in bytes.
pub const MAX_NAME_BYTES: usize = 100;

/// A player's key: the name trimmed and ASCII-lowercased, at most [`MAX_NAME_BYTES`],
/// without control or bidirectional formatting characters, path separators (`/`, `\`) or
/// `..`, and neither `.` nor empty. Such a key is always one plain directory name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlayerKey(String);

/// Characters that reorder or hide text (Unicode's bidirectional controls and marks): a
/// name holding one could show as another.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

impl PlayerKey {
    /// The key of `name`, or why it cannot be one.
    pub fn new(name: &str) -> Result<PlayerKey, InvalidName> {
        let refuse = |why| {
            Err(InvalidName {
                name: name.to_string(),
                why,
            })
        };
        let t = name.trim();
        if t.is_empty() {
            return refuse("it is empty");
        }
        if t.len() > MAX_NAME_BYTES {
            return refuse("it is longer than 100 bytes");
        }
        if t.chars().any(char::is_control) {
            return refuse("it holds a control character");
        }
        if t.chars().any(is_bidi_control) {
            return refuse("it holds a bidirectional formatting character");
        }
        if t.contains(['/', '\\']) {
            return refuse("it holds a slash or a backslash");
        }
        if t == "." || t.contains("..") {
            return refuse("it is \".\" or holds \"..\"");
        }
        Ok(PlayerKey(t.to_ascii_lowercase()))
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key as text, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The player's directory under `root` (one component: the key).
    pub fn dir_under(&self, root: &Path) -> PathBuf {
        root.join(&self.0)
    }
}

/// `name` as one word of a command a person can paste into a shell (`Kasparov, Gary` as
/// `'Kasparov, Gary'`), for the commands mirror suggests; a name that cannot be a player's
/// is refused as everywhere.
pub fn command_word(name: &str) -> Result<String, InvalidName> {
    PlayerKey::new(name)?;
    let t = name.trim();
    shlex::try_quote(t)
        .map(std::borrow::Cow::into_owned)
        .map_err(|_| InvalidName {
            name: name.to_string(),
            why: "it cannot be quoted for a shell",
        })
}

impl std::fmt::Display for PlayerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_trimmed_and_lowercased_and_always_one_plain_directory() {
        for (name, key) in [
            ("Biskupstunga", "biskupstunga"),
            ("  Kasparov, Gary ", "kasparov, gary"),
            ("Kortschnoj, Viktor", "kortschnoj, viktor"),
            ("Ölli", "Ölli"),
            ("J. Smith", "j. smith"),
        ] {
            let k = PlayerKey::new(name).expect(name);
            assert_eq!(k.as_str(), key);
            let dir = k.dir_under(Path::new("/data/models"));
            assert_eq!(dir.parent(), Some(Path::new("/data/models")), "{name}");
            assert_eq!(dir.file_name().and_then(|f| f.to_str()), Some(key));
        }
    }

    #[test]
    fn names_that_could_leave_a_directory_or_hide_text_are_refused_with_the_reason() {
        for (name, why) in [
            ("../../evilmodel", "slash"),
            ("..", "\"..\""),
            (".", "\"..\""),
            ("a..b", "\"..\""),
            ("Alekhine/Reilly", "slash"),
            ("x\\y", "slash"),
            ("abc\u{202E}gpj", "bidirectional"),
            ("a\u{2066}b", "bidirectional"),
            ("new\nline", "control"),
            ("", "empty"),
            ("   ", "empty"),
        ] {
            let e = PlayerKey::new(name).expect_err(name);
            assert_eq!(e.name, name);
            assert!(e.why.contains(why), "{name:?}: {}", e.why);
        }
        assert!(PlayerKey::new(&"a".repeat(101)).is_err());
        assert!(PlayerKey::new(&"a".repeat(100)).is_ok());
    }

    #[test]
    fn a_name_is_one_word_of_a_command() {
        assert_eq!(command_word("hikaru").as_deref(), Ok("hikaru"));
        assert_eq!(
            command_word(" Kasparov, Gary ").as_deref(),
            Ok("'Kasparov, Gary'")
        );
        // A shell reads each back as the one word it was.
        for name in ["O'Kelly", "Kasparov, Gary", "a$b `c` !d \"e\" *"] {
            let word = command_word(name).expect("a word");
            assert_eq!(shlex::split(&word), Some(vec![name.to_string()]), "{word}");
        }
        assert!(command_word("../x").is_err());
    }
}
