//! Case file errors, each naming the file and a line: unreadable, malformed YAML, invalid field.

use crate::yaml_line;

/// A case file that could not be read or is not a valid case.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}:{line}: field `{field}`: {message}")]
    Invalid {
        file: String,
        line: usize,
        field: String,
        message: String,
    },
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
        match text.get(..loc.index()) {
            Some(before) => {
                line = before.matches('\n').count() + 1;
                column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            }
            None => (line, column) = (loc.line(), loc.column()),
        }
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
    let at = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
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

/// The 1-based line where a second YAML document starts: a `---` after some content.
fn second_document_line(text: &str) -> Option<usize> {
    let mut content = false;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_end();
        if t == "---" || t.starts_with("--- ") {
            if content {
                return Some(n + 1);
            }
            content = t.len() > 3;
        } else if !(t.trim_start().is_empty() || t.trim_start().starts_with('#') || t == "...") {
            content = true;
        }
    }
    None
}
