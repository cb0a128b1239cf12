//! Evicting the caches before a cold sample: a read of a buffer twice the last-level cache.

use std::hint::black_box;

/// The last-level cache assumed where sysfs does not give one (a large current L3).
const FALLBACK_BYTES: usize = 32 << 20;

/// A buffer of real pages (written when made, so none is the shared zero page) that a read
/// through evicts every line the caches held before: twice the last-level cache, since a victim
/// L3 (AMD's) keeps part of what a read of its own size passes through.
pub(super) struct Evict {
    lines: Vec<u64>,
}

impl Evict {
    pub fn new() -> Self {
        let bytes = 2 * last_level_cache_bytes().unwrap_or(FALLBACK_BYTES);
        Evict {
            lines: vec![1; bytes / 8],
        }
    }

    /// The bytes one [`Evict::run`] reads.
    pub fn bytes(&self) -> usize {
        self.lines.len() * 8
    }

    /// Reads one word of every 64-byte line of the buffer.
    pub fn run(&self) {
        let sum = self
            .lines
            .iter()
            .step_by(8)
            .fold(0u64, |a, &w| a.wrapping_add(w));
        black_box(sum);
    }
}

/// The size of the highest cache level CPU 0 reports in sysfs (Linux), if any.
fn last_level_cache_bytes() -> Option<usize> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.flatten()
        .filter_map(|e| {
            let read = |f: &str| std::fs::read_to_string(e.path().join(f)).ok();
            let level: u32 = read("level")?.trim().parse().ok()?;
            Some((level, parse_size(&read("size")?)?))
        })
        .max()
        .map(|(_, bytes)| bytes)
}

/// A sysfs cache size (`32768K`, `1M`, `512`) in bytes.
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: usize = digits.parse().ok()?;
    match unit {
        "" => Some(n),
        "K" => Some(n << 10),
        "M" => Some(n << 20),
        "G" => Some(n << 30),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_read_in_bytes() {
        assert_eq!(parse_size("32768K\n"), Some(32 << 20));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("12Q"), None);
        assert_eq!(parse_size("K"), None);
    }

    #[test]
    fn the_buffer_is_twice_a_cache_and_read_whole() {
        let e = Evict::new();
        assert!(e.bytes() >= 2 * 1024 * 1024, "{} bytes", e.bytes());
        e.run();
    }
}
