//! Case file errors, each naming the file and a line: unreadable, malformed YAML, invalid field.

use crate::yaml_line;

/// A case file that could not be read or is not a valid case.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        source: crate::file::ReadError,
    },
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}:{line}:{column}: field `{field}`: {message}")]
    Invalid {
        file: String,
        line: usize,
        column: usize,
        field: String,
        message: String,
    },
}

/// Deepest nesting a case or profile file may have (flow brackets and block levels together); the
/// real ones nest four or five levels.
pub const MAX_DEPTH: usize = 64;

impl CaseError {
    /// A field's value that is wrong: located at the field in `text` (or its nearest written
    /// ancestor), else at 1:1.
    pub fn invalid(file: &str, text: &str, field: &str, message: impl Into<String>) -> CaseError {
        let (line, column) = yaml_line::place_near(text, field).unwrap_or((1, 1));
        CaseError::Invalid {
            file: file.to_string(),
            line,
            column,
            field: field.to_string(),
            message: message.into(),
        }
    }
}

/// YAML text (a case or a profile) as `T`: a byte order mark is dropped (libyaml would read it as
/// a second document), and text nested deeper than [`MAX_DEPTH`] is refused before the parser,
/// whose time grows with the square of the depth, sees it.
pub(crate) fn from_yaml<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
) -> Result<T, CaseError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some((line, column)) = yaml_line::too_deep(body, MAX_DEPTH) {
        return Err(CaseError::Parse {
            file: file.to_string(),
            line,
            column,
            message: format!(
                "nested deeper than {MAX_DEPTH} levels; a case or profile nests a few"
            ),
        });
    }
    serde_yaml_ng::from_str(body).map_err(|e| parse_error(file, body, &e))
}

/// A serde_yaml_ng error as a located `CaseError::Parse`: line and column counted as editors count
/// them (from the error's byte offset), the location not repeated at the end of the message, and a
/// line found for the errors that come without one (a duplicate key, a second document).
pub(crate) fn parse_error(file: &str, text: &str, e: &serde_yaml_ng::Error) -> CaseError {
    let mut message = e.to_string();
    let (mut line, mut column) = (1, 1);
    if let Some(loc) = e.location() {
        let suffix = format!(" at line {} column {}", loc.line(), loc.column());
        if let Some(m) = message.strip_suffix(&suffix) {
            message = m.to_string();
        }
        (line, column) = if loc.index() <= text.len() {
            yaml_line::line_col(text, loc.index())
        } else {
            (loc.line(), loc.column())
        };
    }
    if let Some(at) = through_alias(text, &message) {
        (line, column) = at;
    }
    if let Some(index) = e.location().map(|l| l.index()) {
        message = as_written(text, index, message);
    }
    if let Some(key) = message
        .split_once("duplicate field `")
        .and_then(|(_, r)| r.split_once('`'))
        .map(|(k, _)| k)
    {
        if let Some(l) = yaml_line::duplicate_key_line(text, key) {
            (line, column) = (l, 1);
        }
    }
    if message.contains("more than one document") {
        if let Some(l) = second_document_line(text) {
            (line, column) = (l, 1);
        }
    }
    // A number too large for its type reaches serde as a string: say what it is.
    if let Some(value) = message
        .split_once("invalid type: string \"")
        .and_then(|(_, r)| r.split_once('"'))
        .map(|(v, _)| v)
    {
        if value.parse::<f64>().is_ok_and(|v| v.is_infinite()) {
            message.push_str(" (the number is beyond the largest f64, about 1.8e308)");
        }
    }
    let lines = yaml_line::line_count(text);
    let at = yaml_line::lines(text)
        .nth(line.saturating_sub(1))
        .unwrap_or("");
    if at.len() > at.trim_start().len() && at[..at.len() - at.trim_start().len()].contains('\t') {
        message.push_str(" (this line is indented with a tab: YAML indents with spaces only)");
    }
    if line > lines {
        (line, column) = (lines, column.max(1));
    }
    CaseError::Parse {
        file: file.to_string(),
        line: line.max(1),
        column: column.max(1),
        message,
    }
}

/// The 1-based line where a second YAML document starts: a `---` after some content, or content
/// after a document end `...`.
fn second_document_line(text: &str) -> Option<usize> {
    let (mut content, mut ended) = (false, false);
    for (n, line) in yaml_line::lines(text).enumerate() {
        let t = line.trim_end();
        let blank = t.trim_start().is_empty() || t.trim_start().starts_with('#');
        if t == "---" || t.starts_with("--- ") {
            if content || ended {
                return Some(n + 1);
            }
            content = t.len() > 3;
        } else if t == "..." || t.starts_with("... ") {
            ended |= content;
        } else if !blank {
            if ended {
                return Some(n + 1);
            }
            content = true;
        }
    }
    None
}

/// Where a wrongly typed value reached through an alias is used: libyaml locates it at its anchor,
/// but the field that took it is what is wrong. `Some` when the message names a field that is
/// written in block style with an alias (`*name`) as its value.
fn through_alias(text: &str, message: &str) -> Option<(usize, usize)> {
    let (field, _) = message.split_once(": ")?;
    if field.contains(' ') {
        return None;
    }
    let line = yaml_line::line_of(text, field)?;
    let written = yaml_line::lines(text).nth(line - 1)?;
    let key = field.rsplit(['.', '[']).next()?;
    let after = written
        .find(key)
        .map_or(written, |i| &written[i + key.len()..]);
    let star = after
        .trim_start_matches([':', ' ', '\t', ']'])
        .starts_with('*');
    star.then(|| {
        let column = written.len() - after.len() + after.find('*').unwrap_or(0);
        (line, written[..column].chars().count() + 1)
    })
}

/// The message with an integer as the file writes it: serde has `-0` (or `+5`, `0x10`) as the
/// number it parsed to, `0`, which is not what the user wrote.
fn as_written(text: &str, index: usize, message: String) -> String {
    let Some(rest) = text.get(index..) else {
        return message;
    };
    let token: &str = rest
        .split([' ', '\t', '\n', '\r', ',', ']', '}', '#'])
        .next()
        .unwrap_or_default();
    let Some((head, tail)) = message.split_once("integer `") else {
        return message;
    };
    let Some((number, tail)) = tail.split_once('`') else {
        return message;
    };
    if token.is_empty()
        || token == number
        || token.parse::<f64>().is_err() && !token.starts_with("0x") && !token.starts_with("0o")
    {
        return message;
    }
    format!("{head}integer `{token}`{tail}")
}
