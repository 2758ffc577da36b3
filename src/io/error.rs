//! One error type for every parser and codec.
//!
//! A message must let a user act: it names the file, the engine field that was being read
//! (e.g. `unity/Texture2D/m_StreamData`) and what is wrong or missing ("drop T_Foo.ubulk").

use std::fmt;

/// What kind of fault an [`Error`] is; the UI groups and colours messages by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The data ends before a field that must be there.
    Truncated,
    /// A value contradicts the format (bad magic, sizes that do not add up, ...).
    Malformed,
    /// Valid data this build cannot read yet (a format, a compression, a version).
    Unsupported,
    /// A declared size or count is beyond [`crate::io::Limits`]; refused before allocating.
    LimitExceeded,
    /// The data lives in a sibling file that was not dropped.
    MissingSibling,
    /// Reading the file itself failed.
    Io,
    /// The file is of no kind Texscope reads.
    NotRecognised,
    /// An encrypted container with no key given, or none that fits: the page asks for one.
    NeedsKey,
    /// Valid data whose decoder was left out of this build (a cargo feature such as `codec-astc`
    /// is off): the page's first module lacks rarely needed codecs and loads the full one on this.
    NotInBuild,
}

/// A fault with the file it happened in, the engine field path and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// The file (as the user named it) the fault was found in, when known.
    pub file: Option<String>,
    /// Engine field path, e.g. `unreal/FTexturePlatformData/NumMips`.
    pub field: Option<String>,
    pub message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            file: None,
            field: None,
            message: message.into(),
        }
    }

    /// `need` bytes were wanted at absolute offset `at` but the data ends at `end`.
    pub fn truncated(at: u64, need: u64, end: u64) -> Self {
        Self::new(
            ErrorKind::Truncated,
            format!("data ends at byte {end}, but {need} more byte(s) were needed at offset {at}"),
        )
    }

    pub fn malformed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Malformed, message)
    }

    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    pub fn limit(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::LimitExceeded, message)
    }

    /// The data lives in `sibling`, which was not among the opened files.
    pub fn missing_sibling(sibling: &str, what: impl fmt::Display) -> Self {
        Self::new(
            ErrorKind::MissingSibling,
            format!("{what} lives in {sibling}, which was not opened: drop {sibling} too"),
        )
    }

    /// An encrypted container that no given key opens (`what` says which case).
    pub fn needs_key(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NeedsKey, message)
    }

    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, message)
    }

    pub fn not_recognised(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotRecognised, message)
    }

    /// `what` needs the decoder behind cargo feature `feature`, which this build left out.
    pub fn not_in_build(what: impl fmt::Display, feature: &str) -> Self {
        Self::new(
            ErrorKind::NotInBuild,
            format!("{what} needs the `{feature}` decoder, which this build does not include"),
        )
    }

    /// Names the file, unless an inner reader already did.
    pub fn in_file(mut self, file: &str) -> Self {
        if self.file.is_none() {
            self.file = Some(file.to_string());
        }
        self
    }

    /// Names the engine field, unless a more precise one is already set.
    pub fn at_field(mut self, field: &str) -> Self {
        if self.field.is_none() {
            self.field = Some(field.to_string());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Adds file/field context to any `Result<T, Error>`.
pub trait Context<T> {
    fn in_file(self, file: &str) -> Result<T>;
    fn at_field(self, field: &str) -> Result<T>;
}

impl<T> Context<T> for Result<T> {
    fn in_file(self, file: &str) -> Result<T> {
        self.map_err(|e| e.in_file(file))
    }
    fn at_field(self, field: &str) -> Result<T> {
        self.map_err(|e| e.at_field(field))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_file_field_and_fault() {
        let e = Error::truncated(100, 4, 102)
            .at_field("unity/Texture2D/m_Width")
            .in_file("level0");
        assert_eq!(e.kind, ErrorKind::Truncated);
        assert_eq!(
            e.to_string(),
            "level0: unity/Texture2D/m_Width: data ends at byte 102, but 4 more byte(s) were needed at offset 100"
        );
    }

    #[test]
    fn inner_context_wins() {
        let e = Error::malformed("x")
            .in_file("a")
            .in_file("b")
            .at_field("f1")
            .at_field("f2");
        assert_eq!(e.file.as_deref(), Some("a"));
        assert_eq!(e.field.as_deref(), Some("f1"));
    }

    #[test]
    fn missing_sibling_says_what_to_drop() {
        let e = Error::missing_sibling("T_Foo.ubulk", "mips 0-4");
        assert!(e.to_string().contains("drop T_Foo.ubulk"));
    }
}
