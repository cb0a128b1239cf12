//! The Khronos validation layer's verdict on a run: with `WGPU_VALIDATION` on and a layer settings
//! file (`VK_LAYER_SETTINGS_PATH`) that logs to a file, every message the layer wrote there during
//! the run is a problem of the run, named in the report.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The layer's name, as its manifest and the loader give it.
const LAYER: &str = "VK_LAYER_KHRONOS_validation";

/// Where the layer logs, and when the run began: the layer truncates its log as it opens it
/// (with each instance), so a log not written since is another run's.
#[derive(Clone, Debug)]
pub struct LayerLog {
    pub settings: PathBuf,
    pub log: PathBuf,
    since: SystemTime,
}

/// Whether `WGPU_VALIDATION` asks wgpu for the validation layer (as wgpu reads it: set and not 0).
pub fn requested() -> bool {
    std::env::var("WGPU_VALIDATION").is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0")
}

/// The settings file `VK_LAYER_SETTINGS_PATH` names: the file itself, or `vk_layer_settings.txt`
/// in the folder it names (as the layer looks it up).
fn settings_file(value: &Path) -> PathBuf {
    if value.is_dir() {
        value.join("vk_layer_settings.txt")
    } else {
        value.to_path_buf()
    }
}

/// The value of `key` in a layer settings file (`key = value` lines, `#` comments).
fn setting<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or_default())
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .map(|(_, v)| v.trim())
}

impl LayerLog {
    /// The run's layer log: `None` when validation is not requested; an error when it is but the
    /// settings cannot log to a file or the layer is not installed (a run that silently validated
    /// nothing would read green).
    pub fn configured() -> Result<Option<LayerLog>, String> {
        if !requested() {
            return Ok(None);
        }
        let Some(value) = std::env::var_os("VK_LAYER_SETTINGS_PATH") else {
            return Err("WGPU_VALIDATION is set without VK_LAYER_SETTINGS_PATH: the layer prints to stdout, where no run can judge it; name a settings file with khronos_validation.log_filename".into());
        };
        LayerLog::at(Path::new(&value)).map(Some)
    }

    /// The log that the settings at `value` (a file, or a folder holding
    /// `vk_layer_settings.txt`) name, for a run that begins now.
    pub fn at(value: &Path) -> Result<LayerLog, String> {
        let settings = settings_file(value);
        let text = crate::file::read_text_limited(&settings, 1 << 20)
            .map_err(|e| format!("VK_LAYER_SETTINGS_PATH: {}: {e}", settings.display()))?;
        let missing = |what: &str| {
            format!(
                "VK_LAYER_SETTINGS_PATH: {} sets no {what}, so the layer does not log to a file",
                settings.display()
            )
        };
        let action = setting(&text, "khronos_validation.debug_action")
            .ok_or_else(|| missing("khronos_validation.debug_action"))?;
        if !action.contains("VK_DBG_LAYER_ACTION_LOG_MSG") {
            return Err(missing(
                "VK_DBG_LAYER_ACTION_LOG_MSG in khronos_validation.debug_action",
            ));
        }
        let log = setting(&text, "khronos_validation.log_filename")
            .filter(|v| !v.is_empty() && *v != "stdout")
            .ok_or_else(|| missing("khronos_validation.log_filename"))?;
        // The layer opens a relative name from the process's folder.
        let log = std::env::current_dir().unwrap_or_default().join(log);
        installed()?;
        // A margin for file times, which the kernel takes from a coarser clock.
        let since = SystemTime::now() - Duration::from_secs(2);
        Ok(LayerLog {
            settings,
            log,
            since,
        })
    }

    /// Every message the layer logged in this run, one string each. `vulkan`: whether the run
    /// had a Vulkan adapter, which loads the layer; a log the layer did not open since the run
    /// began then means it never loaded, and validated nothing.
    pub fn messages(&self, vulkan: bool) -> Result<Vec<String>, String> {
        let fresh = std::fs::metadata(&self.log)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= self.since);
        if !fresh {
            return match vulkan {
                true => Err(format!("the layer did not open its log {} during the run: it did not load, and validated nothing", self.log.display())),
                false => Ok(Vec::new()),
            };
        }
        let bytes = crate::file::read_limited(&self.log, 64 << 20)
            .map_err(|e| format!("the layer's log {}: {e}", self.log.display()))?;
        Ok(split(&String::from_utf8_lossy(&bytes)))
    }
}

/// The log's messages: each starts on a line of its own at the margin (`VUID-…(ERROR / SPEC):
/// msgNum: …`, `UNASSIGNED-…(WARN / PERF): …`); the indented lines after it are its details.
pub fn split(text: &str) -> Vec<String> {
    let mut messages: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match messages.last_mut() {
            Some(m) if line.starts_with(char::is_whitespace) => {
                m.push('\n');
                m.push_str(line);
            }
            _ => messages.push(line.to_string()),
        }
    }
    messages
}

/// The manifest folders the Vulkan loader reads explicit layers from, in its order.
fn manifest_folders() -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for var in ["VK_LAYER_PATH", "VK_ADD_LAYER_PATH"] {
        if let Some(v) = std::env::var_os(var) {
            folders.extend(std::env::split_paths(&v));
        }
    }
    let data = std::env::var("XDG_DATA_DIRS").unwrap_or("/usr/local/share:/usr/share".into());
    let config = std::env::var("XDG_CONFIG_DIRS").unwrap_or("/etc/xdg".into());
    let home = std::env::var_os("HOME").map(PathBuf::from);
    for base in config.split(':').chain(["/etc"]).chain(data.split(':')) {
        folders.push(Path::new(base).join("vulkan/explicit_layer.d"));
    }
    if let Some(home) = home {
        folders.push(home.join(".local/share/vulkan/explicit_layer.d"));
    }
    folders
}

/// Whether a layer manifest names the validation layer; an error naming the package otherwise.
fn installed() -> Result<(), String> {
    let found = manifest_folders().iter().any(|dir| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                crate::file::read_text_limited(&e.path(), 1 << 20).is_ok_and(|t| t.contains(LAYER))
            })
        })
    });
    match found {
        true => Ok(()),
        false => Err(format!("WGPU_VALIDATION is set but no layer manifest names {LAYER} (Debian package vulkan-validationlayers; scripts/setup-adapters installs it): the run would validate nothing")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_read_as_the_layer_reads_them() {
        let text = "# comment\nkhronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG # why\n khronos_validation.log_filename=target/vvl.log\n";
        assert_eq!(
            setting(text, "khronos_validation.debug_action"),
            Some("VK_DBG_LAYER_ACTION_LOG_MSG")
        );
        assert_eq!(
            setting(text, "khronos_validation.log_filename"),
            Some("target/vvl.log")
        );
        assert_eq!(setting(text, "khronos_validation.report_flags"), None);
    }

    #[test]
    fn a_log_splits_into_its_messages() {
        // As the layer of Vulkan SDK 1.3.239 writes them.
        let log = "UNASSIGNED-CoreValidation-Shader-OutputNotConsumed(WARN / PERF): msgNum: 101294395 - Validation Performance Warning: [ UNASSIGNED-CoreValidation-Shader-OutputNotConsumed ] Object 0: handle = 0x1 | Vertex attribute at location 2 not consumed by vertex shader\n    Objects: 1\n        [0] 0x1, type: 15, name: NULL\nVUID-vkCmdDraw-None-02699(ERROR / SPEC): msgNum: 1 - Validation Error: [ VUID-vkCmdDraw-None-02699 ]\n    more detail\n\n";
        let m = split(log);
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(m[0].contains("location 2 not consumed"));
        assert!(m[0].ends_with("name: NULL"));
        assert_eq!(
            m[1],
            "VUID-vkCmdDraw-None-02699(ERROR / SPEC): msgNum: 1 - Validation Error: [ VUID-vkCmdDraw-None-02699 ]\n    more detail"
        );
        assert!(split("").is_empty());
    }
}
