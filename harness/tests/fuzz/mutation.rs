//! Mutations of the real case files: byte flips, truncation, line edits, inserted tokens, hostile numbers.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::root;
use crate::text::PUNCT;

pub(crate) fn case_files() -> &'static [(PathBuf, String)] {
    static FILES: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        skinproof::suite::case_files(&root().join("cases"))
            .unwrap()
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                (p.strip_prefix(root()).unwrap().to_path_buf(), text)
            })
            .collect()
    })
}

const HOSTILE_NUMBERS: &[&str] = &[
    ".nan",
    ".inf",
    "-.inf",
    "0",
    "-0",
    "-1",
    "1e39",
    "1e-50",
    "1e400",
    "18446744073709551616",
    "65537",
    "16777217",
    "4294967296",
    "-.5",
    "0x10",
    "~",
];

/// One edit: (kind, position, byte).
pub(crate) fn mutate(text: &str, edits: &[(u8, usize, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(kind, pos, byte) in edits {
        let len = bytes.len();
        let mut lines: Vec<Vec<u8>> = bytes.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
        let n = lines.len();
        match kind % 8 {
            0 if len > 0 => bytes[pos % len] ^= byte | 1,
            1 => bytes.truncate(pos % (len + 1)),
            2 => {
                let l = lines[pos % n].clone();
                lines.insert(pos % n, l);
                bytes = lines.join(&b'\n');
            }
            3 => {
                lines.remove(pos % n);
                bytes = lines.join(&b'\n');
            }
            4 => {
                let t = PUNCT[byte as usize % PUNCT.len()].as_bytes();
                let at = pos % (len + 1);
                bytes.splice(at..at, t.iter().copied()).for_each(drop);
            }
            5 => {
                lines.swap(pos % n, byte as usize % n);
                bytes = lines.join(&b'\n');
            }
            6 => {
                // Replace the digits of some number with a hostile one.
                let starts: Vec<usize> = (0..len)
                    .filter(|&i| {
                        bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit())
                    })
                    .collect();
                if let Some(&s) = starts.get(pos % starts.len().max(1)) {
                    let e = (s..len)
                        .find(|&i| !bytes[i].is_ascii_digit() && bytes[i] != b'.')
                        .unwrap_or(len);
                    let h = HOSTILE_NUMBERS[byte as usize % HOSTILE_NUMBERS.len()].as_bytes();
                    bytes.splice(s..e, h.iter().copied()).for_each(drop);
                }
            }
            _ => {
                // Re-indent a line by a few spaces or a tab.
                let l = &mut lines[pos % n];
                match byte % 3 {
                    0 => l.splice(0..0, *b"  ").for_each(drop),
                    1 => l.splice(0..0, *b"\t").for_each(drop),
                    _ => l.splice(0..l.len().min(2), []).for_each(drop),
                }
                bytes = lines.join(&b'\n');
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Field names of a path: `pose[1].axis` -> pose, axis.
pub(crate) fn field_keys(field: &str) -> Vec<&str> {
    field
        .split(['.', '['])
        .map(|k| k.trim_end_matches(']'))
        .filter(|k| !k.is_empty() && !k.chars().all(|c| c.is_ascii_digit()))
        .collect()
}
