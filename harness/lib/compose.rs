//! Composes a shader split into modules (naga_oil's `#import`, `#ifdef`, `#define_import_path`) into one WGSL text, errors located in the module files.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

use naga_oil::compose::{
    ComposableModuleDescriptor, Composer, NagaModuleDescriptor, ShaderDefValue,
};

/// A define's value: `true`/`false` (`false` leaves it undefined, so `#ifdef` is false) or an
/// integer (for `#if NAME == 4` and `#{NAME}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(untagged)]
pub enum Define {
    Bool(bool),
    Int(i64),
}

impl std::fmt::Display for Define {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Define::Bool(b) => write!(f, "{b}"),
            Define::Int(i) => write!(f, "{i}"),
        }
    }
}

/// What composition needs: the entry module, the folders its imports are found in, the defines.
pub struct Spec<'a> {
    pub entry: &'a Path,
    pub entry_source: &'a str,
    pub folders: &'a [PathBuf],
    pub defines: &'a BTreeMap<String, Define>,
    /// The folder module paths are shown relative to in the provenance (the profile's).
    pub base: &'a Path,
}

/// The composed shader.
#[derive(Clone, Debug)]
pub struct Composed {
    /// One WGSL text: what is validated, run, mutated and recorded as the shader.
    pub source: String,
    /// Every input that made it, for provenance: each module used (its path and text, entry
    /// first) and the defines. A change in any of them changes this.
    pub inputs: String,
    /// The module files used, entry first.
    pub modules: Vec<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    /// A located diagnostic in a module file (file:line:column and the offending line).
    #[error("{0}")]
    Module(String),
    /// A module folder the profile names (by its index in `folders`) that cannot be read.
    #[error("{message}")]
    Folder { index: usize, message: String },
    /// A define the profile gives that no module used reads.
    #[error("no module reads the define `{0}`")]
    UnusedDefine(String),
}

/// A module file found in the folders: its path, text and import path.
struct Found {
    path: PathBuf,
    text: String,
}

/// Composes `spec`'s entry module with the modules it imports, under its defines.
pub fn compose(spec: &Spec) -> Result<Composed, ComposeError> {
    let found = find_modules(spec)?;
    let order = import_order(spec.entry_source, &found);
    let used = used_modules(spec, &order, &found)?;
    check_defines(&used, spec.defines)?;
    let defs: HashMap<String, ShaderDefValue> = spec
        .defines
        .iter()
        .filter_map(|(name, value)| match value {
            Define::Bool(false) => None,
            Define::Bool(true) => Some((name.clone(), ShaderDefValue::Bool(true))),
            Define::Int(i) => Some((name.clone(), ShaderDefValue::Int(*i as i32))),
        })
        .collect();
    let mut composer = Composer::default();
    for name in &order {
        let module = &found[name];
        let file = shown(&module.path);
        let added = composer.add_composable_module(ComposableModuleDescriptor {
            source: &module.text,
            file_path: &file,
            ..Default::default()
        });
        if let Err(e) = added {
            return Err(ComposeError::Module(e.emit_to_string(&composer)));
        }
    }
    let entry = shown(spec.entry);
    let module = composer
        .make_naga_module(NagaModuleDescriptor {
            source: spec.entry_source,
            file_path: &entry,
            shader_defs: defs,
            ..Default::default()
        })
        .map_err(|e| ComposeError::Module(final_error(&e, &composer, spec.entry_source, &entry)))?;
    let info = crate::validator::strict().validate(&module).map_err(|e| {
        let hint = crate::validator::interface_hint(&e, &module)
            .map_or(String::new(), |h| format!("\n{h}"));
        ComposeError::Module(format!(
            "{entry}: the composed module is invalid: {}{hint}",
            e.into_inner()
        ))
    })?;
    let source =
        naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
            .map_err(|e| {
                ComposeError::Module(format!("{entry}: cannot write the composed module: {e}"))
            })?;
    let mut inputs = String::new();
    let base = std::fs::canonicalize(spec.base).unwrap_or_else(|_| spec.base.to_path_buf());
    for (path, text) in &used {
        let full = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let rel = full.strip_prefix(&base).unwrap_or(&full);
        inputs.push_str(&format!("== {}\n{text}\n", rel.display()));
    }
    inputs.push_str("== defines\n");
    for (name, value) in spec.defines {
        inputs.push_str(&format!("{name} = {value}\n"));
    }
    Ok(Composed {
        source,
        inputs,
        modules: used.iter().map(|(p, _)| p.to_path_buf()).collect(),
    })
}

/// naga_oil's error for the composed module: where naga gave its validation error no place (an
/// entry point's interface), placed at the entry point's `fn` in the entry module, which holds
/// every entry point.
fn final_error(
    e: &naga_oil::compose::ComposerError,
    composer: &Composer,
    entry_source: &str,
    entry: &str,
) -> String {
    use naga_oil::compose::ComposerErrorInner;
    match &e.inner {
        ComposerErrorInner::ShaderValidationError(v) if v.spans().len() == 0 => {
            let placed = crate::validator::placed(v, None, entry_source);
            if placed.spans().len() > 0 {
                return placed.emit_to_string_with_path(entry_source, entry);
            }
            format!("{entry}: {}", e.emit_to_string(composer))
        }
        _ => e.emit_to_string(composer),
    }
}

/// Whether `source` needs composing: it imports modules, declares an import path of its own or
/// reads defines.
pub fn is_split(source: &str) -> bool {
    // naga_oil lists only the imports whose items the code uses; the lines tell any.
    let directive = source.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("#import") || l.starts_with("#define_import_path")
    });
    directive || !define_reads(source).is_empty()
}

/// The defines that `spec`'s entry module and the modules it imports read and do not `#define`
/// themselves, in name order (`spec.defines` is not consulted): what a profile's
/// `modules.defines` must give.
pub fn defines_read(spec: &Spec) -> Result<Vec<String>, ComposeError> {
    let found = find_modules(spec)?;
    let order = import_order(spec.entry_source, &found);
    let used = used_modules(spec, &order, &found)?;
    let mut names = std::collections::BTreeSet::new();
    for (_, text) in used {
        let declared = declared_defines(text);
        names.extend(
            define_reads(text)
                .into_iter()
                .map(|(name, _, _)| name)
                .filter(|name| !declared.contains(name)),
        );
    }
    Ok(names.into_iter().collect())
}

/// What naga_oil appends to the name of an item it imported from a module: this, the module's
/// path in base32 (RFC 4648, no padding), and `X`.
const DECORATION: &str = "X_naga_oil_mod_X";

/// An imported item's name in the composed WGSL (`skin_matrixX_naga_oil_mod_X...X`) as its module
/// writes it, `module::path::skin_matrix`; None for a name composition left alone.
pub fn undecorated(name: &str) -> Option<String> {
    let (item, rest) = name.split_once(DECORATION)?;
    let path = base32(rest.strip_suffix('X')?)?;
    Some(format!("{path}::{item}"))
}

/// `text` with every imported item's name written as its module writes it ([`undecorated`]).
pub fn undecorate(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        out.push_str(&undecorated(&word).unwrap_or_else(|| word.clone()));
        word.clear();
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

/// RFC 4648 base32 without padding, decoded as UTF-8.
fn base32(encoded: &str) -> Option<String> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let (mut bits, mut held, mut bytes) = (0u32, 0u32, Vec::new());
    for c in encoded.bytes() {
        let value = ALPHABET.iter().position(|&a| a == c)? as u32;
        bits = (bits << 5) | value;
        held += 5;
        if held >= 8 {
            held -= 8;
            bytes.push((bits >> held) as u8);
            bits &= (1 << held) - 1;
        }
    }
    String::from_utf8(bytes).ok()
}

/// A path as messages show it: relative to the folder the run started in.
fn shown(path: &Path) -> String {
    let here = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&here)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Whether `path` is relative and stays inside the folder it is relative to (no `..` past it).
pub fn stays_inside(path: &str) -> bool {
    let mut depth = 0i32;
    for c in Path::new(path).components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// The modules in `spec`'s folders (every `.wgsl` file, searched in depth, that declares a
/// `#define_import_path`), by import path. Two files declaring one path are refused.
fn find_modules(spec: &Spec) -> Result<BTreeMap<String, Found>, ComposeError> {
    let entry = std::fs::canonicalize(spec.entry).ok();
    let mut files = Vec::new();
    for (index, folder) in spec.folders.iter().enumerate() {
        wgsl_files(folder, &mut files).map_err(|e| ComposeError::Folder {
            index,
            message: format!("cannot read the module folder `{}`: {e}", shown(folder)),
        })?;
    }
    let mut out: BTreeMap<String, Found> = BTreeMap::new();
    for path in files {
        if std::fs::canonicalize(&path).ok() == entry {
            continue;
        }
        let read = crate::file::read_text_limited(&path, crate::file::MAX_SHADER_BYTES);
        let text = read.map_err(|e| {
            ComposeError::Module(format!("{}: cannot read module: {e}", shown(&path)))
        })?;
        let (Some(name), _, _) = naga_oil::compose::get_preprocessor_data(&text) else {
            continue;
        };
        if let Some(first) = out.get(&name) {
            let (line, column) = locate(&text, "#define_import_path").unwrap_or((1, 1));
            return Err(ComposeError::Module(format!(
                "{}:{line}:{column}: the module path `{name}` is already declared by {}; each module has its own",
                shown(&path),
                shown(&first.path)
            )));
        }
        out.insert(name, Found { path, text });
    }
    Ok(out)
}

/// Every `.wgsl` file under `dir`, in name order.
fn wgsl_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            wgsl_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            out.push(path);
        }
    }
    Ok(())
}

/// The modules `source` imports, directly or not, each after the modules it imports (the order
/// the composer takes them in). An import no file declares is left out: the composer then names
/// it, located where it is imported.
fn import_order(source: &str, found: &BTreeMap<String, Found>) -> Vec<String> {
    fn visit(
        source: &str,
        found: &BTreeMap<String, Found>,
        seen: &mut Vec<String>,
        order: &mut Vec<String>,
    ) {
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(source);
        for import in imports {
            let Some(name) = resolve(&import.import, found) else {
                continue;
            };
            if seen.contains(&name) {
                continue;
            }
            seen.push(name.clone());
            visit(&found[&name].text, found, seen, order);
            order.push(name);
        }
    }
    let (mut seen, mut order) = (Vec::new(), Vec::new());
    visit(source, found, &mut seen, &mut order);
    order
}

/// The module an import names: `a::b` itself, or `a::b::item`'s module `a::b`.
fn resolve(import: &str, found: &BTreeMap<String, Found>) -> Option<String> {
    let mut name = import;
    loop {
        if found.contains_key(name) {
            return Some(name.to_string());
        }
        name = &name[..name.rfind("::")?];
    }
}

/// The entry module and the modules it imports in `order` (path and text), each import checked
/// to name a module in the folders.
fn used_modules<'a>(
    spec: &'a Spec,
    order: &[String],
    found: &'a BTreeMap<String, Found>,
) -> Result<Vec<(&'a Path, &'a str)>, ComposeError> {
    let mut used: Vec<(&Path, &str)> = vec![(spec.entry, spec.entry_source)];
    used.extend(
        order
            .iter()
            .map(|name| (found[name].path.as_path(), found[name].text.as_str())),
    );
    check_imports(&used, found, spec.folders)?;
    Ok(used)
}

/// Every import of the modules used must name a module in the folders: naga_oil's own error
/// comes later, after the defines' check, which a module not found would misdirect.
fn check_imports(
    modules: &[(&Path, &str)],
    found: &BTreeMap<String, Found>,
    folders: &[PathBuf],
) -> Result<(), ComposeError> {
    for (path, text) in modules {
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(text);
        let Some(missing) = imports.iter().find(|i| resolve(&i.import, found).is_none()) else {
            continue;
        };
        // The `#import` line that names it (its first segment: a brace import splits the rest).
        let head = missing.import.split("::").next().unwrap_or_default();
        let (line, column, shown_line) = (text.lines().enumerate())
            .find(|(_, l)| l.trim_start().starts_with("#import") && l.contains(head))
            .map_or((1, 1, ""), |(i, l)| {
                (i + 1, l.find('#').unwrap_or(0) + 1, l.trim_end())
            });
        let searched: Vec<String> = folders.iter().map(|f| shown(f)).collect();
        return Err(ComposeError::Module(format!(
            "{}:{line}:{column}: `{}` is imported, but no module in the folders searched ({}) declares its path with `#define_import_path`\n  {line} | {shown_line}",
            shown(path),
            missing.import,
            searched.join(", ")
        )));
    }
    Ok(())
}

/// Every define a module reads must be given (`false` to leave it off), so that a misspelt
/// `#ifdef` cannot switch a path off unseen; every define given must be read by some module.
fn check_defines(
    modules: &[(&Path, &str)],
    defines: &BTreeMap<String, Define>,
) -> Result<(), ComposeError> {
    let mut read = std::collections::BTreeSet::new();
    for (path, text) in modules {
        let declared = declared_defines(text);
        for (name, line, column) in define_reads(text) {
            if declared.contains(&name) {
                continue;
            }
            if !defines.contains_key(&name) {
                let shown_line = text.lines().nth(line - 1).unwrap_or("").trim_end();
                return Err(ComposeError::Module(format!(
                    "{}:{line}:{column}: unknown define `{name}`: the profile's `modules.defines` does not give it (write `{name}: false` to leave it off)\n  {line} | {shown_line}",
                    shown(path)
                )));
            }
            read.insert(name);
        }
    }
    match defines.keys().find(|name| !read.contains(*name)) {
        Some(unused) => Err(ComposeError::UnusedDefine(unused.clone())),
        None => Ok(()),
    }
}

/// The names a module `#define`s itself (the entry module may).
fn declared_defines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix('#'))
        .filter_map(|l| l.trim_start().strip_prefix("define "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Each define a module reads, with its 1-based line and column: the name after `#ifdef`,
/// `#ifndef`, `#if` (and their `#else` forms), and each `#{NAME}` or `#NAME` in the code.
fn define_reads(text: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim_start();
        if let Some(directive) = trimmed.strip_prefix('#') {
            let words = directive.trim_start();
            let words = words.strip_prefix("else").map_or(words, str::trim_start);
            for keyword in ["ifdef", "ifndef", "if"] {
                if let Some(rest) = words.strip_prefix(keyword) {
                    if rest.starts_with(char::is_whitespace) {
                        let name = identifier(rest.trim_start());
                        if !name.is_empty() {
                            let column = offset_in(line, rest.trim_start()) + 1;
                            out.push((name.to_string(), i + 1, column));
                        }
                        break;
                    }
                }
            }
            continue;
        }
        let mut at = 0;
        while let Some(hash) = code[at..].find('#') {
            let start = at + hash + 1;
            let rest = &code[start..];
            let (name, skip) = match rest.strip_prefix('{') {
                Some(inner) => (identifier(inner), 1),
                None => (identifier(rest), 0),
            };
            if !name.is_empty() {
                out.push((name.to_string(), i + 1, start + skip + 1));
            }
            at = start;
        }
    }
    out
}

/// The identifier `text` starts with (empty if none).
fn identifier(text: &str) -> &str {
    let end = text
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_alphanumeric() || *c == '_') || (*i == 0 && c.is_ascii_digit()))
        .map_or(text.len(), |(i, _)| i);
    &text[..end]
}

/// The byte offset of `part` (a sub-slice of `line`) in `line`.
fn offset_in(line: &str, part: &str) -> usize {
    part.as_ptr() as usize - line.as_ptr() as usize
}

/// The 1-based line and column where `needle` first appears in `text`.
fn locate(text: &str, needle: &str) -> Option<(usize, usize)> {
    let at = text.find(needle)?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shader_is_split_by_its_directives() {
        assert!(!is_split("// #import in a comment\nfn f() {}"));
        // An import whose items the code never uses is one still.
        assert!(is_split("#import engine::skinning\nfn f() {}"));
        assert!(is_split("#define_import_path engine::skinning\nfn f() {}"));
        assert!(is_split("#ifdef SKINNED\nfn f() {}\n#endif"));
    }

    #[test]
    fn imported_names_read_as_their_modules_write_them() {
        // naga_oil's decoration of `skin::blend` ("ONVWS3R2HJRGYZLOMQ" in base32).
        let name = "skin_matrixX_naga_oil_mod_XONVWS3R2HJRGYZLOMQX";
        assert_eq!(
            undecorated(name).as_deref(),
            Some("skin::blend::skin_matrix")
        );
        assert_eq!(undecorated("skin_matrix"), None);
        assert_eq!(undecorated("aX_naga_oil_mod_Xa1X"), None);
        assert_eq!(
            undecorate(&format!("`{name}` is called by `vs_main`.")),
            "`skin::blend::skin_matrix` is called by `vs_main`."
        );
    }

    #[test]
    fn paths_stay_inside() {
        assert!(stays_inside("composed"));
        assert!(stays_inside("a/../b"));
        assert!(!stays_inside("../b"));
        assert!(!stays_inside("a/../../b"));
        assert!(!stays_inside("/etc"));
    }

    #[test]
    fn define_reads_are_located() {
        let text =
            "#ifdef A\nlet x = #{B}u + #C;\n  # else if D == 2\n#ifndef E // F\n#import x::y\n";
        let reads = define_reads(text);
        let names: Vec<_> = reads.iter().map(|(n, l, c)| (n.as_str(), *l, *c)).collect();
        assert_eq!(
            names,
            [
                ("A", 1, 8),
                ("B", 2, 11),
                ("C", 2, 18),
                ("D", 3, 13),
                ("E", 4, 9)
            ]
        );
    }
}
