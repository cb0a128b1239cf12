//! Files in and out: reads that refuse special files and stop at a stated size, and atomic writes (temporary sibling, then rename).

use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::path::Path;

/// Largest case or profile file: far above any real case, small enough to locate errors at once.
pub const MAX_CASE_BYTES: u64 = 1 << 20;
/// Largest shader source.
pub const MAX_SHADER_BYTES: u64 = 4 << 20;
/// Largest glTF, GLB or glTF buffer file, and largest golden PNG.
pub const MAX_MODEL_BYTES: u64 = 256 << 20;
/// Largest golden sidecar or small JSON file (thresholds).
pub const MAX_SMALL_BYTES: u64 = 1 << 20;
/// Largest report.json a merge reads.
pub const MAX_REPORT_BYTES: u64 = 64 << 20;

/// A file that could not be read: its message starts with what is wrong, the caller names the path.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A folder, FIFO, device or socket: never opened for reading (a FIFO would block, a device
    /// could read forever).
    #[error("is {0}, not a regular file")]
    NotRegular(&'static str),
    #[error("is larger than {limit} bytes, the most read from such a file")]
    TooLarge { limit: u64 },
}

impl ReadError {
    /// Whether nothing is at the path.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// What a file that is not a regular file is, in words (`None` for a regular file).
pub fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Checks that `path` (symlinks followed) is a regular file, without opening it.
pub fn check_regular(path: &Path) -> Result<(), ReadError> {
    match special_kind(&std::fs::metadata(path)?) {
        None => Ok(()),
        Some(kind) => Err(ReadError::NotRegular(kind)),
    }
}

/// Opens a regular file for reading without ever blocking on a FIFO swapped in after the check.
fn open_regular(path: &Path) -> Result<File, ReadError> {
    check_regular(path)?;
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: opening a FIFO returns at once; regular files ignore the flag.
        options.custom_flags(0o4000);
    }
    let file = options.open(path)?;
    // What was opened, not what was checked: the path may have changed between the two.
    match special_kind(&file.metadata()?) {
        None => Ok(file),
        Some(kind) => Err(ReadError::NotRegular(kind)),
    }
}

/// The bytes of the regular file at `path`, at most `limit` of them: a folder, FIFO, device or
/// socket is refused before it is read, a longer file once `limit` bytes are past.
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Err(ReadError::TooLarge { limit });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // The length may grow while reading (or lie, for /proc files): `take` is the bound.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

/// [`read_limited`] as UTF-8 text; text that is not UTF-8 is an `InvalidData` error.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, ReadError> {
    utf8(read_limited(path, limit)?)
}

/// A file's bytes as UTF-8 text; text that is not UTF-8 is an `InvalidData` error.
pub fn utf8(bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|e| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text ({})", e.utf8_error()),
        ))
    })
}

/// Writes `bytes` to `path` (creating its folder) through a temporary sibling and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("skinproof-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let p = dir.join("sub/out.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_refuse_special_files_and_stop_at_the_limit() {
        let dir = std::env::temp_dir().join(format!("skinproof-read-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.txt");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_limited(&p, 5).unwrap(), b"12345");
        assert!(matches!(
            read_limited(&p, 4),
            Err(ReadError::TooLarge { limit: 4 })
        ));
        let e = read_limited(&dir, 10).unwrap_err();
        assert_eq!(e.to_string(), "is a folder, not a regular file");
        #[cfg(unix)]
        {
            // An endless device behind a symlink is refused before a byte is read.
            let zero = dir.join("zero.yaml");
            std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
            let e = read_limited(&zero, 10).unwrap_err();
            assert_eq!(e.to_string(), "is a character device, not a regular file");
        }
        assert!(read_limited(&dir.join("none"), 10)
            .unwrap_err()
            .is_not_found());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
