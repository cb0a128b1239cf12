//! Loads the shader under test, validates it with naga and checks it against the binding contract.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use naga::common::wgsl::TypeContext;
use naga::{AddressSpace, Binding, Handle, ShaderStage, StorageAccess, TypeInner};

use crate::contract::{list, Contract, Elem, Role};
use crate::profile::Profile;

/// The WGSL source under test, where it came from, and the contract it is held to.
#[derive(Clone, Debug)]
pub struct Shader {
    pub path: PathBuf,
    pub source: String,
    pub contract: Arc<Contract>,
    /// The layout profile the contract was read from, if any.
    pub profile: Option<PathBuf>,
    /// WGSL the harness adds to the source (see `capture`); the contract above includes it.
    pub added: String,
    /// Why the harness could not add what the profile asks for (a missing skinning function).
    pub unmet: Option<String>,
    /// A shader composed from modules: every input that made `source` (each module's path and
    /// text, the defines), what its provenance is taken from. `None`: `source` is the file.
    pub inputs: Option<String>,
    /// The cases its profile says its layout cannot hold, with the failures expected.
    pub expect: Vec<crate::profile::ShaderExpect>,
}

#[derive(Debug, thiserror::Error)]
pub enum ShaderError {
    #[error("{path}: cannot read shader: {source}")]
    Io {
        path: String,
        source: crate::file::ReadError,
    },
    /// naga's located diagnostic (file:line:column and the offending source line).
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: breaks {against}: {message}")]
    Contract {
        path: String,
        against: String,
        message: String,
    },
    /// The layout profile is unreadable or invalid, or describes another shader.
    #[error("{0}")]
    Profile(#[from] crate::case::CaseError),
}

/// The shader file's bytes, at most `MAX_SHADER_BYTES`.
fn read_source(path: &Path) -> Result<Vec<u8>, ShaderError> {
    let read = crate::file::read_limited(path, crate::file::MAX_SHADER_BYTES);
    read.map_err(|source| ShaderError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// A naga parse error that comes without a place (its recursion limit): located at the deepest
/// bracket nesting, which is where a parser that recurses per level gives up.
fn unlocated(path: &str, source: &str, message: &str) -> String {
    let (mut depth, mut deepest, mut at) = (0usize, 0usize, 0usize);
    let mut chars = source.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '/' if chars.peek().is_some_and(|&(_, n)| n == '/') => {
                // A line comment: skip to its end.
                while chars.next_if(|&(_, n)| n != '\n').is_some() {}
            }
            '(' | '[' | '{' => {
                depth += 1;
                if depth > deepest {
                    (deepest, at) = (depth, i);
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let before = &source[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{path}:{line}:{column}: {message} (brackets nest {deepest} deep here)")
}

impl Shader {
    /// `source`, from `path`, held to the built-in contract.
    pub fn new(path: impl Into<PathBuf>, source: impl Into<String>) -> Shader {
        Shader::held_to(path.into(), source.into(), Contract::builtin(), None)
    }

    /// `source` held to `contract` (from `profile`), completed from the shader itself: the
    /// workgroup size, a fixed palette's length, and what the harness adds.
    fn held_to(
        path: PathBuf,
        source: String,
        mut contract: Contract,
        profile: Option<PathBuf>,
    ) -> Shader {
        let module = naga::front::wgsl::parse_str(&source).ok();
        if let Some(module) = &module {
            resolve(&mut contract, module);
        }
        let (mut added, mut unmet) = (String::new(), None);
        match module
            .as_ref()
            .map(|m| crate::capture::addition(&contract, m, &source))
        {
            Some(Ok(Some((wgsl, extended)))) => (added, contract) = (wgsl, extended),
            Some(Err(why)) => unmet = Some(why),
            _ => {}
        }
        Shader {
            path,
            source,
            contract: Arc::new(contract),
            profile,
            added,
            unmet,
            inputs: None,
            expect: Vec::new(),
        }
    }

    /// What identifies the shader for the goldens' provenance: the file, or for a composed
    /// shader every module and define that made it (a change in any module makes goldens stale).
    pub fn provenance(&self) -> &str {
        self.inputs.as_deref().unwrap_or(&self.source)
    }

    /// The source the GPU module is built from: the shader and what the harness adds.
    pub fn module_source(&self) -> String {
        format!("{}{}", self.source, self.added)
    }

    /// The shader at `path`, held to its layout profile: `profile` if given, else the
    /// `<stem>.profile.yaml` beside the shader if there is one, else the built-in contract. A
    /// GLSL or SPIR-V shader (by its file name, `foreign::Form`) is read as wgpu reads it and
    /// tested as the WGSL naga writes from it.
    pub fn load(path: &Path, profile: Option<&Path>) -> Result<Shader, ShaderError> {
        let beside = crate::profile::beside(path);
        // Whatever is there is loaded, so that a folder or FIFO there is refused by name.
        let profile = profile.or(beside.exists().then_some(beside.as_path()));
        let Some(profile) = profile else {
            return Shader::alone(path);
        };
        Shader::under(path, read_source(path)?, Profile::load(profile)?)
    }

    /// The shader at `path` without any profile, even where one is beside it: under the built-in
    /// contract, its GLSL without defines (for printing it where its profile does not load).
    pub fn alone(path: &Path) -> Result<Shader, ShaderError> {
        let (source, inputs) = as_wgsl(path, read_source(path)?, None)?;
        Ok(Shader {
            inputs,
            ..Shader::new(path, source)
        })
    }

    /// `source` (the shader at `path`: WGSL text, or GLSL or SPIR-V as `load` reads them) held
    /// to a profile not written anywhere yet, `text`, as if it were at `profile` (a draft checked
    /// before it is written).
    pub fn with_profile_text(
        path: &Path,
        source: impl Into<Vec<u8>>,
        profile: &Path,
        text: &str,
    ) -> Result<Shader, ShaderError> {
        Shader::under(path, source.into(), Profile::parse(profile, text)?)
    }

    /// The shader at `path`, read from `bytes`, held to `profile`: written as WGSL first where it
    /// is GLSL or SPIR-V, composed where the profile splits it into modules.
    fn under(path: &Path, bytes: Vec<u8>, profile: Profile) -> Result<Shader, ShaderError> {
        // A file whose name says no language wgpu reads, before what the profile says of it.
        crate::foreign::Form::of(path).map_err(ShaderError::Invalid)?;
        profile.describes(path)?;
        let (source, translated) = as_wgsl(path, bytes, Some(&profile))?;
        let composed = match &profile.modules {
            Some(modules) => Some(compose(&profile, modules, path, &source)?),
            None => None,
        };
        let (source, inputs) = match composed {
            Some(c) => (c.source, Some(c.inputs)),
            None => (source, translated),
        };
        Ok(Shader {
            inputs,
            expect: profile.expect.clone(),
            ..Shader::held_to(
                path.to_path_buf(),
                source,
                profile.contract(),
                Some(profile.path),
            )
        })
    }

    /// The name messages place the shader's lines in: its file, or for a GLSL or SPIR-V shader
    /// the WGSL naga writes from it (which `skinproof wgsl` prints).
    pub fn shown(&self) -> String {
        match crate::foreign::Form::of(&self.path) {
            Ok(crate::foreign::Form::Wgsl) | Err(_) => self.path.display().to_string(),
            Ok(_) => format!("{} as WGSL", self.path.display()),
        }
    }

    /// Whether naga parses and validates the WGSL under test with what the harness appends.
    pub fn naga_accepts(&self) -> bool {
        naga::front::wgsl::parse_str(&self.module_source())
            .is_ok_and(|m| crate::validator::strict().validate(&m).is_ok())
    }

    /// Parses and validates with naga, then checks entry points and bindings against the contract.
    /// The shader is validated with what the harness adds (appended, so the shader's own lines
    /// keep their numbers).
    pub fn validate(&self) -> Result<naga::Module, ShaderError> {
        // Diagnostics place lines in the WGSL tested (a GLSL or SPIR-V shader's as naga writes
        // it); the contract's messages name the file.
        let path = self.shown();
        let file = self.path.display().to_string();
        let source = self.module_source();
        let module = naga::front::wgsl::parse_str(&source).map_err(|e| {
            let placed = e.labels().any(|(span, _)| span.is_defined());
            let mut text = match e.location(&source) {
                Some(_) if placed => e.emit_to_string_with_path(&source, &path),
                // A label without a span: the lowering lost it (a constructor given a
                // function's result of the wrong type).
                Some(_) => format!(
                    "{path}: {} (naga gives this error no line){}",
                    e.message(),
                    e.notes().map(|n| format!("\n  = {n}")).collect::<String>()
                ),
                None => unlocated(&path, &source, &e.to_string()),
            };
            // Preprocessor lines naga cannot read: a shader split into modules, not yet composed.
            if self.inputs.is_none() && crate::compose::is_split(&self.source) {
                text.push_str(&format!(
                    "\n(the shader is split into modules (`#import`, `#ifdef`): a layout profile's `modules` section composes it; `cargo run --release --bin skinproof -- profile {path} --define NAME` drafts one, with each define the modules read)"
                ));
            }
            ShaderError::Invalid(text)
        })?;
        let mut validator = crate::validator::strict();
        let own_lines = self.source.lines().count() as u32;
        let valid = validator.validate(&module).map_err(|e| {
            let e = crate::validator::placed(&e, Some(&module), &source);
            let mut text = crate::validator::emitted(&e, &module, (&source, &path));
            // Past the shader's own lines: in what the harness appends (its capture stage).
            let appended = e.location(&source).filter(|l| l.line_number > own_lines);
            if let Some(at) = appended {
                text.push_str(&format!(
                    "\n(line {} is in the WGSL the harness appends after the shader's {own_lines} lines: the compute stage that calls the shader's skinning, or the fragment stage it draws with)",
                    at.line_number
                ));
            }
            (text, appended.is_some())
        });
        // The contract first: a binding of the wrong type usually also makes naga reject the code
        // that uses it, and the contract says which binding and what it should be.
        let mut broken = contract_violations(&self.contract, &module, valid.as_ref().ok());
        broken.extend(self.unmet.clone());
        if !broken.is_empty() {
            let mut message = broken.join("; ");
            // An error in the harness's own appended stage follows from the violation (it
            // passes what the profile says the shader returns): only the shader's own is news.
            // (Where it does not follow, the violation is still the first thing to mend, and the
            // error comes back once it is.)
            if let Err((diagnostic, false)) = valid {
                message.push_str("\nnaga also rejects the shader:\n");
                message.push_str(diagnostic.trim_end());
            }
            // Held to SPEC.md for want of a profile: an engine's layout needs one.
            if self.contract.profile.is_none() {
                message.push_str(&format!(
                    "\n(a shader laid out as an engine lays its own needs a layout profile beside it, {}; `cargo run --release --bin skinproof -- profile {file}` drafts one from the shader)",
                    crate::profile::beside(&self.path).display()
                ));
            }
            return Err(ShaderError::Contract {
                path: file,
                against: self.contract.name(),
                message,
            });
        }
        // The profile's defines make the WGSL: one not beside the shader is named.
        let profile = (self.profile.as_ref())
            .filter(|p| **p != crate::profile::beside(&self.path))
            .map(|p| format!(" --profile {}", p.display()))
            .unwrap_or_default();
        valid.map_err(|(text, _)| match path == file {
            true => ShaderError::Invalid(text),
            false => ShaderError::Invalid(format!(
                "{text}\n(`cargo run --release --bin skinproof -- wgsl {file}{profile}` prints the WGSL naga writes from {file}, whose lines these are)"
            )),
        })?;
        Ok(module)
    }
}

/// The entry module at `path` composed with the modules the profile's folders hold, under its
/// defines. A composition error is located in the module it is in; a define no module reads, in
/// the profile.
fn compose(
    profile: &Profile,
    modules: &crate::profile::Modules,
    path: &Path,
    source: &str,
) -> Result<crate::compose::Composed, ShaderError> {
    use crate::compose::ComposeError;
    let base = profile.folder();
    let folders: Vec<PathBuf> = modules.folders.iter().map(|f| base.join(f)).collect();
    crate::compose::compose(&crate::compose::Spec {
        entry: path,
        entry_source: source,
        folders: &folders,
        defines: &modules.defines,
        base: &base,
    })
    .map_err(|e| match e {
        ComposeError::Module(message) => ShaderError::Invalid(message),
        ComposeError::Folder { index, message } => {
            ShaderError::Profile(profile.located(&format!("modules.folders[{index}]"), message))
        }
        ComposeError::UnusedDefine(name) => ShaderError::Profile(profile.located(
            &format!("modules.defines.{name}"),
            format!("no module the entry module imports reads the define `{name}`: a misspelt name, or one for another shader"),
        )),
    })
}

/// The shader's text as the harness tests it, from the file's `bytes`: WGSL as it is; GLSL or
/// SPIR-V written as WGSL by naga (GLSL under the profile's `defines`), with what made it for the
/// provenance.
fn as_wgsl(
    path: &Path,
    bytes: Vec<u8>,
    profile: Option<&Profile>,
) -> Result<(String, Option<String>), ShaderError> {
    use crate::foreign::Form;
    let form = Form::of(path).map_err(ShaderError::Invalid)?;
    // A text form (WGSL, GLSL) that is not UTF-8 is unreadable, as any text file.
    let unreadable = |source| ShaderError::Io {
        path: path.display().to_string(),
        source,
    };
    if form == Form::Wgsl {
        return Ok((crate::file::utf8(bytes).map_err(unreadable)?, None));
    }
    let text = match form {
        Form::Glsl(_) => Some(crate::file::utf8(bytes.clone()).map_err(unreadable)?),
        _ => None,
    };
    let none = BTreeMap::new();
    let defines = profile.map_or(&none, |p| &p.defines);
    if let (Some(profile), Some(text)) = (profile, &text) {
        if let Some(name) = defines
            .keys()
            .find(|name| !crate::foreign::mentions(text, name))
        {
            return Err(ShaderError::Profile(profile.located(
                &format!("defines.{name}"),
                format!(
                    "`{}` never reads the define `{name}`: a misspelt name, or one for another shader",
                    path.display()
                ),
            )));
        }
    }
    let translated =
        crate::foreign::translate(path, &bytes, form, defines).map_err(ShaderError::Invalid)?;
    Ok((translated.wgsl, Some(translated.inputs)))
}

/// The contract a profile's `text` describes for `source`, completed from the shader as a run
/// completes it (a fixed palette's length, the filled buffers): for a draft to read what its
/// guesses make of the layout. None where the text is not a valid profile.
pub fn contract_of(source: &str, text: &str) -> Option<Contract> {
    let profile = Profile::parse(Path::new("draft.profile.yaml"), text).ok()?;
    let mut contract = profile.contract();
    let module = naga::front::wgsl::parse_str(source).ok()?;
    resolve(&mut contract, &module);
    Some(contract)
}

/// What the contract takes from the shader itself: the compute stage's workgroup size (with the
/// profile's constants), the filled buffers' spaces and bytes, the unnamed attributes fed zeros,
/// the camera struct's size and a fixed-length palette's length. A shader naga cannot read keeps
/// the defaults; validation then says why.
fn resolve(contract: &mut Contract, module: &naga::Module) {
    let info = crate::validator::strict().validate(module).ok();
    let entry = contract.compute.as_deref();
    if let Some(ep) = module
        .entry_points
        .iter()
        .find(|ep| Some(ep.name.as_str()) == entry)
    {
        if let Some(size) = workgroup_size(module, info.as_ref(), ep, &contract.naga_constants()) {
            contract.workgroup_size = size;
        }
    }
    fill_buffers(contract, module, info.as_ref());
    fill_immediates(contract, module);
    writable_inputs(contract, module);
    pair_joints(contract, module);
    wide_influences(contract, module);
    zero_attributes(contract, module);
    size_camera(contract, module);
    place_members(contract, module);
    place_named(contract, module);
    free_members(contract, module);
    size_outputs(contract, module);
    let palette = contract.slot(Role::Palette);
    let handle = global_handle_at(module, palette.group, palette.binding);
    if let Some(var) = global_at(module, palette.group, palette.binding) {
        let ty = match member_of(module, var.ty, contract.member(Role::Palette)) {
            Some(m) => m.ty,
            None => crate::contract::unwrapped(&module.types, var.ty),
        };
        let member = member_index(module, var.ty, contract.member(Role::Palette));
        if let TypeInner::Array { base, stride, .. } = module.types[ty].inner {
            let e = &mut contract.palette_element;
            e.stride = stride;
            // A bare array of vec4 slots: a joint's rows or columns, one after another.
            if crate::slots::is_vec4f(&module.types[base].inner) && e.member.is_none() {
                // As the shader's reads step through them (in the block's member that holds
                // them, if one does), where that fits the profile's form: columns come four a
                // joint, rows three or four.
                let place = |global| crate::slots::Place { global, member };
                let read = (handle.and_then(|g| crate::slots::per_joint(module, place(g))))
                    .filter(|&k| e.rows || k == 4);
                e.slots = read.unwrap_or(if e.rows { 3 } else { 4 });
                e.stride = stride * e.slots;
            }
            let held = member_of(module, base, e.member.as_ref());
            let matrix = held.map_or(base, |m| m.ty);
            // Rows in a mat4x4: all four of them.
            e.four_rows = e.rows
                && matches!(
                    module.types[matrix].inner,
                    TypeInner::Matrix {
                        columns: naga::VectorSize::Quad,
                        rows: naga::VectorSize::Quad,
                        ..
                    }
                );
            let offset = held.map(|m| m.offset);
            if let (Some(m), Some(offset)) = (e.member.as_mut(), offset) {
                m.offset = offset;
            }
            if let Some(n) = member_of(module, base, e.normal.as_ref()) {
                if let TypeInner::Matrix { columns, .. } = module.types[n.ty].inner {
                    e.normal_columns = columns as u32;
                }
                if let Some(m) = e.normal.as_mut() {
                    m.offset = n.offset;
                }
            }
        }
        if let TypeInner::Array {
            size: naga::ArraySize::Constant(n),
            ..
        } = module.types[ty].inner
        {
            // Whole joints: a fixed array of vec4 slots holds a joint in every 3 or 4.
            let slots = contract.palette_element.slots.max(1);
            contract.palette_len = Some(n.get() / slots);
            contract.palette_declared = module.types[var.ty].inner.size(module.to_ctx());
        }
    }
}

/// The byte-addressed buffers' fields the profile gives by member name, and a stride it leaves
/// out, placed as the shader's vertex struct has them; a member the struct lacks stays at 0
/// (validation names it).
fn place_named(contract: &mut Contract, module: &naga::Module) {
    let element = |contract: &Contract, role: Role| {
        let slot = contract.try_slot(role)?;
        let var = global_at(module, slot.group, slot.binding)?;
        crate::vertex_struct::element(module, var.ty)
    };
    let place = |(s, stride): (Handle<naga::Type>, u32), named: &[(String, String)]| {
        (named.iter())
            .filter_map(|(field, member)| match field.as_str() {
                "stride" => Some((field.clone(), stride)),
                _ => crate::vertex_struct::member_offset(module, s, member)
                    .map(|o| (field.clone(), o)),
            })
            .collect::<Vec<_>>()
    };
    let roles = [
        Role::Positions,
        Role::Joints,
        Role::Weights,
        Role::Normals,
        Role::Tangents,
    ];
    for role in roles {
        let pulled = element(contract, role).zip(contract.pulled_as(role));
        let pulled = pulled.map(|(e, p)| place(e, &p.members));
        if let (Some(p), Some(placed)) = (contract.pulled_as_mut(role), pulled) {
            placed.into_iter().for_each(|(f, v)| p.place(&f, v));
        }
    }
    let packed = element(contract, Role::Skinned).zip(contract.packed.as_ref());
    let packed = packed.map(|(e, p)| place(e, &p.members));
    if let (Some(p), Some(placed)) = (contract.packed.as_mut(), packed) {
        placed.into_iter().for_each(|(f, v)| p.place(&f, v));
    }
}

/// Under a profile, a storage input the shader declares `read_write` (engines that skin in place,
/// or declare every buffer so) is bound as declared: WebGPU lets a read-write binding hold data
/// that is only read, and each dispatch uploads its inputs afresh, so a write into one reaches no
/// other case. The shader contract of SPEC.md keeps its inputs read-only.
fn writable_inputs(contract: &mut Contract, module: &naga::Module) {
    if contract.profile.is_none() {
        return;
    }
    for slot in &mut contract.slots {
        let declared = global_at(module, slot.group, slot.binding).map(|v| v.space);
        if let (
            crate::contract::Space::Storage { writable },
            Some(AddressSpace::Storage { access }),
        ) = (&mut slot.space, declared)
        {
            *writable |= access.contains(StorageAccess::STORE);
        }
    }
}

/// A shader that takes its vertex count from an output's `arrayLength` (an engine's skin cache,
/// sized to exactly the vertices it skins) is given outputs of exactly the case's vertices: a
/// guard after them would count as vertices. Its bound cannot overrun the binding then, so the
/// guard has nothing to catch.
fn size_outputs(contract: &mut Contract, module: &naga::Module) {
    let outputs = [Role::Skinned, Role::SkinnedNormals, Role::SkinnedTangents];
    let outputs: Vec<_> = (outputs.into_iter())
        .filter_map(|r| contract.try_slot(r))
        .filter_map(|s| global_handle_at(module, s.group, s.binding))
        .collect();
    let mut all = all_functions(module);
    let reads_length = |f: &naga::Function| {
        f.expressions.iter().any(|(_, e)| match *e {
            naga::Expression::ArrayLength(p) => {
                root_global(f, p).is_some_and(|g| outputs.contains(&g))
            }
            _ => false,
        })
    };
    if all.any(reads_length) {
        contract.output_guard = 0;
    }
}

/// Every function of the module, its entry points' included.
pub(crate) fn all_functions(module: &naga::Module) -> impl Iterator<Item = &naga::Function> {
    (module.functions.iter().map(|(_, f)| f)).chain(module.entry_points.iter().map(|e| &e.function))
}

pub(crate) use crate::naga_walk::{for_each_nested, for_each_statement};

/// The global variable a pointer expression reaches into, if any (`&out.vertices` -> `out`,
/// `skinned[i]` -> `skinned`).
pub(crate) fn root_global(
    f: &naga::Function,
    mut e: Handle<naga::Expression>,
) -> Option<Handle<naga::GlobalVariable>> {
    loop {
        match f.expressions[e] {
            naga::Expression::GlobalVariable(g) => return Some(g),
            naga::Expression::Access { base, .. } | naga::Expression::AccessIndex { base, .. } => {
                e = base
            }
            _ => return None,
        }
    }
}

/// An output declared as an array of a vertex struct: the bytes of its members the profile names
/// no field on (a texture coordinate the shader copies through), which the shader may write.
fn free_members(contract: &mut Contract, module: &naga::Module) {
    let Some(slot) = contract.try_slot(Role::Skinned) else {
        return;
    };
    let Some(var) = global_at(module, slot.group, slot.binding) else {
        return;
    };
    if let (Some((s, _)), Some(p)) = (
        crate::vertex_struct::element(module, var.ty),
        contract.packed.as_mut(),
    ) {
        p.others = crate::vertex_struct::others(module, s, &p.fields());
    }
}

/// The struct member `member` names in `ty`, if `ty` is a struct that has it.
fn member_of<'a>(
    module: &'a naga::Module,
    ty: Handle<naga::Type>,
    member: Option<&crate::contract::Member>,
) -> Option<&'a naga::StructMember> {
    let i = member_index(module, ty, member)?;
    match &module.types[element(module, ty)].inner {
        TypeInner::Struct { members, .. } => members.get(i as usize),
        _ => None,
    }
}

/// Where [`member_of`]'s member stands among its struct's members.
fn member_index(
    module: &naga::Module,
    ty: Handle<naga::Type>,
    member: Option<&crate::contract::Member>,
) -> Option<u32> {
    let name = member?.name.as_str();
    match &module.types[element(module, ty)].inner {
        TypeInner::Struct { members, .. } => (members.iter())
            .position(|m| m.name.as_deref() == Some(name))
            .map(|i| i as u32),
        _ => None,
    }
}

/// The struct whose members a binding of type `ty` holds: `ty` itself, or, for an array of
/// structs (per-instance data), its element 0's, the instance the harness draws.
fn element(module: &naga::Module, ty: Handle<naga::Type>) -> Handle<naga::Type> {
    match module.types[ty].inner {
        TypeInner::Array { base, .. }
            if matches!(module.types[base].inner, TypeInner::Struct { .. }) =>
        {
            base
        }
        _ => ty,
    }
}

/// The byte offsets of the palette's and the camera's members in their structs, and the size of
/// the palette's struct. A member the shader lacks stays at 0; validation names it.
fn place_members(contract: &mut Contract, module: &naga::Module) {
    let at = |s: &crate::contract::Slot| global_at(module, s.group, s.binding);
    let palette = at(contract.slot(Role::Palette));
    let camera = match contract.camera_in_palette {
        true => palette,
        false => contract.try_slot(Role::View).and_then(at),
    };
    if let Some(var) = palette {
        if let Some(m) = member_of(module, var.ty, contract.palette_member.as_ref()) {
            let size = u64::from(module.types[var.ty].inner.size(module.to_ctx()));
            contract.palette_struct =
                (contract.palette_fill).over(&matrices(module, var.ty, size), size);
            contract.palette_problems = write_members(
                module,
                var.ty,
                &contract.palette_members,
                &mut contract.palette_struct,
            );
            let offset = m.offset;
            contract
                .palette_member
                .iter_mut()
                .for_each(|p| p.offset = offset);
            if let Some(c) = contract.palette_joint_count.as_mut() {
                match int_offset(module, var.ty, &c.name, "the joint count") {
                    Ok(o) => c.offset = Some(o),
                    Err(why) => (contract.palette_problems)
                        .push(format!("{why} (the profile's {})", c.origin)),
                }
            }
        }
        let normals = contract.palette_normals.as_ref().map(|n| &n.member);
        if let Some(m) = member_of(module, var.ty, normals) {
            if let TypeInner::Array { base, stride, size } = module.types[m.ty].inner {
                let n = contract
                    .palette_normals
                    .as_mut()
                    .expect("member_of found it");
                n.member.offset = m.offset;
                n.stride = stride;
                if let naga::ArraySize::Constant(len) = size {
                    n.len = len.get();
                }
                if let TypeInner::Matrix { columns, .. } = module.types[base].inner {
                    n.columns = columns as u32;
                }
            }
        }
    }
    if let Some(var) = camera {
        // A dotted path into a nested struct too (`g_CameraAttribs.mViewProj`).
        let name = contract.camera_member.as_ref().map(|m| m.name.as_str());
        if let Some(m) = name.and_then(|n| filled_member(module, var.ty, n, "").ok()) {
            let offset = m.offset;
            contract
                .camera_member
                .iter_mut()
                .for_each(|c| c.offset = offset);
        }
    }
}

/// The buffers the harness fills ([`Role::Filled`]), as the shader declares them: each slot takes
/// the variable's address space, and its bytes are as long as the variable's type (64 KiB at
/// least for a runtime-sized array: 1024 matrices, as many as a per-joint array beside the palette
/// needs for the largest cases, an engine's globals or inverse binds indexed by joint). A slot no
/// variable fills keeps its placeholder; validation names it.
fn fill_buffers(
    contract: &mut Contract,
    module: &naga::Module,
    info: Option<&naga::valid::ModuleInfo>,
) {
    /// A runtime-sized array's bytes, or a struct's that ends in one.
    const RUNTIME_BYTES: u64 = 64 * 1024;
    /// An index table's (`fill: sequence`): 2^20 indices of 4 bytes.
    const SEQUENCE_BYTES: u64 = 4 << 20;
    let non_filtering = non_filtering_samplers(contract, module, info);
    for i in 0..contract.filled.len() {
        let role = contract.filled[i].role;
        let Some(slot) = contract.slots.iter_mut().find(|s| s.role == role) else {
            continue;
        };
        let Some(global) = global_handle_at(module, slot.group, slot.binding) else {
            continue;
        };
        let var = &module.global_variables[global];
        if var.space == AddressSpace::Handle {
            let filtering = !non_filtering.contains(&global);
            bind_resource(module, (global, filtering), slot, &mut contract.filled[i]);
            continue;
        }
        slot.space = match var.space {
            AddressSpace::Storage { access } => crate::contract::Space::Storage {
                writable: access.contains(StorageAccess::STORE),
            },
            _ => crate::contract::Space::Uniform,
        };
        let inner = &module.types[var.ty].inner;
        let mut size = u64::from(inner.size(module.to_ctx()));
        let sequence = contract.filled[i].fill == crate::contract::Fill::Sequence;
        if runtime_sized(module, var.ty) {
            // An index table holds an index for every vertex of the largest meshes.
            size = size.max(if sequence {
                SEQUENCE_BYTES
            } else {
                RUNTIME_BYTES
            });
        }
        let whence =
            (slot.origin.as_ref()).map_or(String::new(), |o| format!(" (the profile's {o})"));
        let f = &mut contract.filled[i];
        let mut fill = f.fill.over(&matrices(module, var.ty, size), size);
        f.problems = Vec::new();
        // The indices are the fill; the profile's floats go over them.
        if sequence {
            if let Err(why) = write_sequence(module, var, &mut fill) {
                f.problems.push(format!("{why}{whence}"));
            }
        }
        f.bytes = crate::contract::Filled::contents(&fill, &f.floats);
        f.problems
            .extend(write_members(module, var.ty, &f.members, &mut f.bytes));
        let count = case_counts([&mut f.count, &mut f.joints, &mut f.texture_width]);
        let starts = (f.starts.iter_mut()).map(|(s, c)| {
            let holds = format!("where the vertex pool's `{}` starts", s.name());
            (c, holds, false)
        });
        place_case_members(module, var.ty, count.chain(starts), &mut f.problems);
    }
}

/// The samplers among the filled bindings that must not filter: those the shader samples any
/// texture through but a single-sample float one the harness binds there (a depth or integer
/// texture, or the palette's unfilterable one). None where no filled binding is a handle, or the
/// module does not validate (validation says why).
fn non_filtering_samplers(
    contract: &Contract,
    module: &naga::Module,
    info: Option<&naga::valid::ModuleInfo>,
) -> Vec<Handle<naga::GlobalVariable>> {
    let filled: Vec<Handle<naga::GlobalVariable>> = (contract.filled.iter())
        .filter_map(|f| {
            let slot = contract.try_slot(f.role)?;
            global_handle_at(module, slot.group, slot.binding)
        })
        .filter(|g| module.global_variables[*g].space == AddressSpace::Handle)
        .collect();
    match info {
        Some(info) if !filled.is_empty() => crate::resource::non_filtering(module, info, &filled),
        _ => Vec::new(),
    }
}

/// A texture or sampler among the shader's other bindings: its slot takes the resource the
/// shader declares (a sampler filtering or not, as `filtering`), the texture its texel of the
/// profile's `floats` (none: zeros); what the profile asks of it that only a buffer takes, into
/// `problems` (the paths write a case's values into buffers only). A type the harness cannot
/// bind keeps the placeholder, which validation names.
fn bind_resource(
    module: &naga::Module,
    (global, filtering): (Handle<naga::GlobalVariable>, bool),
    slot: &mut crate::contract::Slot,
    f: &mut crate::contract::Filled,
) {
    use crate::contract::{Fill, Space, Want};
    let var = &module.global_variables[global];
    let Ok(r) = crate::resource::Resource::of(&module.types, var.ty) else {
        return;
    };
    let r = r.filtering(filtering);
    slot.space = if r.is_sampler() {
        Space::Sampler
    } else {
        Space::Texture
    };
    slot.ty = Want::Resource(r);
    let whence = slot.whence();
    let name = var.name.as_deref().unwrap_or("?");
    let is = format!("`{name}` is a {}", r.wgsl());
    f.problems = Vec::new();
    f.bytes = Vec::new();
    if f.fill != Fill::Zero {
        f.problems.push(format!(
            "{is}: a fill is a buffer's; the harness binds a texture of zeros or of `floats`{whence}"
        ));
    }
    let members = (f.members.iter()).map(|m| &m.origin);
    let written = (f.count.iter().chain(&f.joints).chain(&f.texture_width))
        .chain(f.starts.iter().map(|(_, m)| m))
        .map(|m| &m.origin);
    for origin in members.chain(written) {
        f.problems.push(format!(
            "{is}, which has no members: only a buffer's are written (the profile's {origin})"
        ));
    }
    if f.floats.is_empty() {
        return;
    }
    let values: Vec<f64> = f.floats.iter().map(|&v| f64::from(v)).collect();
    let texture = r.texture();
    match texture {
        None => f.problems.push(format!(
            "{is}: `floats` give a texel's values, and a sampler has no texels{whence}"
        )),
        Some(t) if !t.writable() => f.problems.push(format!(
            "{is}: `floats` give a texel's values, and the harness writes none to a depth or multisampled texture, which holds zeros{whence}"
        )),
        Some(_) if values.len() > 4 => f.problems.push(format!(
            "{is}: `floats` give one texel's values, 4 at most, got {}{whence}",
            values.len()
        )),
        Some(t) => match t.texel(&values) {
            Ok(bytes) => f.bytes = bytes,
            Err(why) => f.problems.push(format!("{is}: {why}{whence}")),
        },
    }
}

/// The members a buffer or the immediate data holds the case's vertex count, joint count and
/// palette texture's width in, where given, each with what it holds and whether an f32 may.
fn case_counts(
    members: [&mut Option<crate::contract::CaseMember>; 3],
) -> impl Iterator<Item = (&mut crate::contract::CaseMember, String, bool)> {
    let holds = [
        ("the vertex count", false),
        ("the joint count", false),
        ("the palette texture's width", true),
    ];
    (members.into_iter().zip(holds))
        .filter_map(|(m, (holds, floats))| Some((m.as_mut()?, holds.to_string(), floats)))
}

/// Each member the harness writes for each case (`holds`: what it writes; an f32 too where
/// `floats`) placed at its byte offset in `ty`; why one cannot be, into `problems`, naming where
/// the profile gives it.
fn place_case_members<'a>(
    module: &naga::Module,
    ty: Handle<naga::Type>,
    members: impl Iterator<Item = (&'a mut crate::contract::CaseMember, String, bool)>,
    problems: &mut Vec<String>,
) {
    for (member, holds, floats) in members {
        match scalar_offset(module, ty, &member.name, &holds, floats) {
            Ok((offset, float)) => (member.offset, member.float) = (Some(offset), float),
            Err(why) => problems.push(format!("{why} (the profile's {})", member.origin)),
        }
    }
}

/// Where `ty` holds an array of 32-bit scalars, itself or as its struct's last member (an index
/// table): (their kind, the array's stride, its byte offset).
pub(crate) fn scalar_array(
    module: &naga::Module,
    ty: Handle<naga::Type>,
) -> Option<(naga::ScalarKind, u64, u64)> {
    let types = &module.types;
    let (array, offset) = match &types[ty].inner {
        TypeInner::Struct { members, .. } => members.last().map(|m| (m.ty, u64::from(m.offset)))?,
        _ => (ty, 0),
    };
    let TypeInner::Array { base, stride, .. } = types[array].inner else {
        return None;
    };
    match types[base].inner {
        TypeInner::Scalar(s) if s.width == 4 => Some((s.kind, u64::from(stride), offset)),
        _ => None,
    }
}

/// Element k of `var`'s array of 32-bit scalars (the variable itself, or its struct's last
/// member) written as k in its type over `bytes` (`fill: sequence`), as far as they reach; or
/// why the variable is no such array.
fn write_sequence(
    module: &naga::Module,
    var: &naga::GlobalVariable,
    bytes: &mut [u8],
) -> Result<(), String> {
    let Some((kind, stride, base)) = scalar_array(module, var.ty) else {
        return Err(format!(
            "`fill: sequence` writes each element's index into an array of i32, u32 or f32, and `{}` is {}",
            var.name.as_deref().unwrap_or("?"),
            describe(module, var.ty)
        ));
    };
    let mut k = 0u32;
    let mut at = base as usize;
    while at + 4 <= bytes.len() {
        let word = match kind {
            naga::ScalarKind::Float => (k as f32).to_le_bytes(),
            _ => k.to_le_bytes(),
        };
        bytes[at..at + 4].copy_from_slice(&word);
        k += 1;
        at += stride as usize;
    }
    Ok(())
}

/// The shader's immediate data (`var<immediate>`): its bytes, the type's size in whole words,
/// filled and its member values written as a filled binding's are, and where its case values
/// (`count`, `joint_count`) go; why a profile's `immediates` has nothing to fill where the
/// shader declares none.
fn fill_immediates(contract: &mut Contract, module: &naga::Module) {
    let i = &mut contract.immediates;
    let var = (module.global_variables.iter())
        .map(|(_, v)| v)
        .find(|v| v.space == AddressSpace::Immediate);
    let Some(var) = var else {
        if !i.origin.is_empty() {
            i.problems.push(format!(
                "the profile gives `immediates`, but the shader declares no `var<immediate>` (the profile's {})",
                i.origin
            ));
        }
        return;
    };
    let size = u64::from(module.types[var.ty].inner.size(module.to_ctx())).next_multiple_of(4);
    let fill = i.fill.over(&matrices(module, var.ty, size), size);
    i.bytes = crate::contract::Filled::contents(&fill, &[]);
    i.problems = write_members(module, var.ty, &i.members, &mut i.bytes);
    let written = case_counts([&mut i.count, &mut i.joints, &mut i.texture_width]);
    place_case_members(module, var.ty, written, &mut i.problems);
}

/// The byte offset of member `name` of `ty` (a struct, or element 0 of an array of structs) that
/// holds what the harness writes for each case (`holds`: the vertex count, a region's start): a
/// u32 or i32, or a lane of a vector of them (`params.y`: lane y of member `params`); or why it
/// cannot.
pub(crate) fn int_offset(
    module: &naga::Module,
    ty: Handle<naga::Type>,
    name: &str,
    holds: &str,
) -> Result<u32, String> {
    scalar_offset(module, ty, name, holds, false).map(|(offset, _)| offset)
}

/// As [`int_offset`], an f32 (or a lane of a vector of them) too where `floats`: the offset, and
/// whether the member is a float.
pub(crate) fn scalar_offset(
    module: &naga::Module,
    ty: Handle<naga::Type>,
    name: &str,
    holds: &str,
    floats: bool,
) -> Result<(u32, bool), String> {
    let kind = |s: naga::Scalar| match s {
        naga::Scalar::U32 | naga::Scalar::I32 => Some(false),
        naga::Scalar::F32 if floats => Some(true),
        _ => None,
    };
    let kinds = if floats {
        "a u32, i32 or f32"
    } else {
        "a u32 or i32"
    };
    // `member`: the member itself, or the vector a lane of it is (`params` of `params.y`).
    let wrong = |module: &naga::Module, member: &str, ty: Handle<naga::Type>| {
        let lane = match member == name {
            true => format!(" (or a lane of a vector of them: `{name}.x`)"),
            false => " (here, of a vector of them)".to_string(),
        };
        format!(
            "member `{name}` holds {holds}, so it must be {kinds}{lane}, and `{member}` is {}",
            module.types.type_to_string(ty)
        )
    };
    let lane = (name.rsplit_once('.')).and_then(|(vector, l)| {
        let k = ["x", "y", "z", "w"].iter().position(|&x| x == l)? as u32;
        Some((vector, k))
    });
    if let Some((vector, k)) = lane {
        let member = filled_member(module, ty, vector, &format!(" to hold {holds}"));
        if let Ok(m) = member {
            if let TypeInner::Vector { size, scalar } = module.types[m.ty].inner {
                let Some(float) = kind(scalar) else {
                    return Err(wrong(module, vector, m.ty));
                };
                return match k < size as u32 {
                    true => Ok((m.offset + 4 * k, float)),
                    false => Err(format!(
                        "`{name}` holds {holds}, but `{vector}` is a {}, with no lane {}",
                        module.types.type_to_string(m.ty),
                        ["x", "y", "z", "w"][k as usize]
                    )),
                };
            }
        }
    }
    let member = filled_member(module, ty, name, &format!(" to hold {holds}"))?;
    match module.types[member.ty].inner {
        TypeInner::Scalar(s) => kind(s).map(|float| (member.offset, float)),
        _ => None,
    }
    .ok_or_else(|| wrong(module, name, member.ty))
}

/// Member `name` of a filled binding of type `ty` (a struct, or element 0 of an array of
/// structs), a dotted path into nested structs (`vertices.end`: member `end` of member
/// `vertices`), through an array of them to its element 0 (`data.flags`: Filament's
/// `data[0].flagsChannels`, the drawn object's), at its offset from the binding's struct; or why
/// it has none (`what` says what the member is for, in the message).
fn filled_member(
    module: &naga::Module,
    ty: Handle<naga::Type>,
    name: &str,
    what: &str,
) -> Result<naga::StructMember, String> {
    let types = &module.types;
    let mut st = match types[ty].inner {
        TypeInner::Array { base, .. } => base,
        _ => ty,
    };
    let mut offset = 0;
    let mut path: Vec<&str> = Vec::new();
    for part in name.split('.') {
        // Element 0 of an array of structs (of arrays of them too), at the array's offset.
        let mut element = st;
        while let TypeInner::Array { base, .. } = types[element].inner {
            element = base;
        }
        if matches!(types[element].inner, TypeInner::Struct { .. }) {
            st = element;
        }
        let TypeInner::Struct { members, .. } = &types[st].inner else {
            let (whose, is) = match path.is_empty() {
                true => ("the binding".to_string(), ty),
                false => (format!("`{}`", path.join(".")), st),
            };
            return Err(format!(
                "`{name}` names a member, and {whose} is {}, not a struct",
                describe(module, is)
            ));
        };
        let Some(member) = members.iter().find(|x| x.name.as_deref() == Some(part)) else {
            let names: Vec<&str> = members.iter().filter_map(|x| x.name.as_deref()).collect();
            return Err(format!(
                "{} has no member `{part}`{what}: its members are {}",
                describe(module, st),
                names.join(", ")
            ));
        };
        path.push(part);
        offset += member.offset;
        st = member.ty;
    }
    Ok(naga::StructMember {
        name: Some(name.to_string()),
        ty: st,
        binding: None,
        offset,
    })
}

/// Each of `values` written into `bytes` ([`write_member`]); why each that does not fit could
/// not be, with where the profile gives it.
fn write_members(
    module: &naga::Module,
    ty: Handle<naga::Type>,
    values: &[crate::contract::MemberValue],
    bytes: &mut [u8],
) -> Vec<String> {
    (values.iter())
        .filter_map(|v| {
            let why = write_member(module, ty, v, bytes).err()?;
            Some(format!("{why} (the profile's {})", v.origin))
        })
        .collect()
}

/// `m`'s values written into `bytes` at its member of `ty` (a struct, or element 0 of an array of
/// structs), each scalar as the member's type holds it (an array member's element 0); or why
/// they do not fit.
fn write_member(
    module: &naga::Module,
    ty: Handle<naga::Type>,
    m: &crate::contract::MemberValue,
    bytes: &mut [u8],
) -> Result<(), String> {
    let types = &module.types;
    let member = filled_member(module, ty, &m.name, "")?;
    let shown = types.type_to_string(member.ty);
    // An array of scalars or vectors: its element 0, the drawn instance's (Piccolo's
    // `enable_vertex_blendings[gl_InstanceIndex]`).
    let element = match types[member.ty].inner {
        TypeInner::Array { base, .. }
            if matches!(
                types[base].inner,
                TypeInner::Scalar(_) | TypeInner::Vector { .. }
            ) =>
        {
            base
        }
        _ => member.ty,
    };
    // (scalar, scalars, byte stride between columns, scalars per column).
    let (scalar, count, stride, rows) = match types[element].inner {
        TypeInner::Scalar(s) => (s, 1, 0, 1),
        TypeInner::Vector { size, scalar } => (scalar, size as usize, 0, size as usize),
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => {
            let stride = if rows == naga::VectorSize::Bi { 8 } else { 16 };
            (
                scalar,
                columns as usize * rows as usize,
                stride,
                rows as usize,
            )
        }
        _ => {
            return Err(format!(
            "member `{}` is {shown}: the harness writes numbers into scalars, vectors and matrices (and element 0 of an array of scalars or vectors)",
            m.name
        ))
        }
    };
    if m.values.len() != count {
        return Err(format!(
            "member `{}` is {shown}: give {count} number{}, got {}",
            m.name,
            if count == 1 { "" } else { "s" },
            m.values.len()
        ));
    }
    for (k, &v) in m.values.iter().enumerate() {
        let word: [u8; 4] = match scalar.kind {
            naga::ScalarKind::Float if scalar.width == 4 => (v as f32).to_le_bytes(),
            naga::ScalarKind::Uint if v.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&v) => {
                (v as u32).to_le_bytes()
            }
            naga::ScalarKind::Sint
                if v.fract() == 0.0 && (i32::MIN as f64..=i32::MAX as f64).contains(&v) =>
            {
                (v as i32).to_le_bytes()
            }
            _ => {
                return Err(format!(
                    "member `{}` is {shown}: value {k} ({v}) does not fit its scalar type",
                    m.name
                ))
            }
        };
        let at = member.offset as usize + (k / rows) * stride + (k % rows) * 4;
        bytes[at..at + 4].copy_from_slice(&word);
    }
    Ok(())
}

/// The global variable at `@group(group) @binding(binding)`, if the module declares one.
fn global_at(module: &naga::Module, group: u32, binding: u32) -> Option<&naga::GlobalVariable> {
    global_handle_at(module, group, binding).map(|h| &module.global_variables[h])
}

/// The handle of the global bound at (group, binding), if the shader declares one.
pub(crate) fn global_handle_at(
    module: &naga::Module,
    group: u32,
    binding: u32,
) -> Option<Handle<naga::GlobalVariable>> {
    let at = |b: &naga::ResourceBinding| b.group == group && b.binding == binding;
    let found = module
        .global_variables
        .iter()
        .find(|(_, v)| v.binding.as_ref().is_some_and(at));
    found.map(|(h, _)| h)
}

/// A camera matrix inside a larger struct (an engine's view uniform) is bound as that struct's
/// size, the matrix first and zeros after it.
fn size_camera(contract: &mut Contract, module: &naga::Module) {
    let Some(slot) = contract.try_slot(Role::View) else {
        return;
    };
    if slot.ty != crate::contract::Want::Matrix {
        return;
    }
    if let Some(var) = global_at(module, slot.group, slot.binding) {
        // Read-only storage as the shader declares it (an array of a matrix per instance, the
        // camera in element 0): bound so.
        if let AddressSpace::Storage { access } = var.space {
            if !access.contains(StorageAccess::STORE) {
                let slot = (contract.slots.iter_mut()).find(|s| s.role == Role::View);
                if let Some(slot) = slot {
                    slot.space = crate::contract::Space::Storage { writable: false };
                }
            }
        }
        let size = u64::from(module.types[var.ty].inner.size(module.to_ctx())).max(64);
        let matrices = matrices(module, var.ty, size);
        contract.camera_struct = contract.camera_fill.over(&matrices, size);
        contract.camera_problems = write_members(
            module,
            var.ty,
            &contract.camera_members,
            &mut contract.camera_struct,
        );
    }
}

/// The vertex stage's inputs the profile does not name (a texture coordinate, a colour), fed
/// zeros ([`Role::Zeros`]) where the type is a 32-bit scalar or vector; another type stays
/// unfed, and validation names it.
fn zero_attributes(contract: &mut Contract, module: &naga::Module) {
    let Some(vs) = contract.vertex.as_deref() else {
        return;
    };
    let found = module.entry_points.iter().find(|ep| ep.name == vs);
    let Some(ep) = found.filter(|ep| ep.stage == ShaderStage::Vertex) else {
        return;
    };
    for (location, ty) in located_inputs(module, ep) {
        if contract.input_at(location).is_some() {
            continue;
        }
        if let Some(format) = crate::contract::attribute_format(&module.types[ty].inner) {
            let elem = crate::contract::Elem::Attribute(format);
            let input = crate::contract::VertexInput::new(
                Role::Zeros,
                (elem, None),
                format,
                location,
                None,
            );
            contract.vertex_inputs.push(input);
        }
    }
}

/// u16 joints a vertex stage takes as `vec2<u32>` pairs (WGSL has no u16: each u32 holds two
/// indices, low half first): their attributes are read as `Uint32x2`, the same 8 bytes a vertex.
fn pair_joints(contract: &mut Contract, module: &naga::Module) {
    use crate::contract::{Elem, JointFormat};
    let Some(vs) = contract.vertex.as_deref() else {
        return;
    };
    let Some(ep) = module.entry_points.iter().find(|ep| ep.name == vs) else {
        return;
    };
    // With fewer influences read, a vec2<u32> is two joints, not four u16 ones.
    if contract.formats.vertex_joints != JointFormat::U16x4 || contract.lanes < 4 {
        return;
    }
    let pairs = wgpu::VertexFormat::Uint32x2;
    let inputs = located_inputs(module, ep);
    for input in contract.vertex_inputs.iter_mut() {
        let at = inputs.iter().find(|(l, _)| *l == input.location());
        let ty = at.map(|(_, ty)| &module.types[*ty].inner);
        if input.role == Role::Joints && ty.is_some_and(|t| Elem::Attribute(pairs).matches(t)) {
            input.ty = Elem::Attribute(pairs);
            input.attribute.format = pairs;
        }
    }
}

/// A stage that reads fewer influences than 4 (`max_influences`) from vec4 attributes of joints
/// or weights (Ogre's two-weight programs loop over the first two of its `vec4 blendIndices`):
/// each such input takes the 4 lanes it declares, as a vec4 in storage does; the harness still
/// fills the first lanes alone.
fn wide_influences(contract: &mut Contract, module: &naga::Module) {
    use crate::contract::Elem;
    let Some(vs) = contract.vertex.as_deref() else {
        return;
    };
    let Some(ep) = module.entry_points.iter().find(|ep| ep.name == vs) else {
        return;
    };
    if contract.lanes == 4 || contract.paired() {
        return;
    }
    let joints = contract.formats.vertex_joints.elem();
    let inputs = located_inputs(module, ep);
    for input in contract.vertex_inputs.iter_mut() {
        let four = match input.role {
            Role::Joints => joints,
            Role::Weights => Elem::Vec4F32,
            _ => continue,
        };
        let at = inputs.iter().find(|(l, _)| *l == input.location());
        if at.is_some_and(|(_, ty)| four.matches(&module.types[*ty].inner)) {
            input.ty = four;
        }
    }
}

/// The float matrices of a buffer of type `ty` within its first `size` bytes (a runtime-sized
/// array's elements repeat to there): struct members and array elements, in depth.
fn matrices(
    module: &naga::Module,
    ty: Handle<naga::Type>,
    size: u64,
) -> Vec<crate::contract::MatrixAt> {
    fn walk(
        module: &naga::Module,
        ty: Handle<naga::Type>,
        base: u64,
        size: u64,
        out: &mut Vec<crate::contract::MatrixAt>,
    ) {
        if base >= size {
            return;
        }
        match module.types[ty].inner {
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } if scalar.kind == naga::ScalarKind::Float && scalar.width == 4 => {
                out.push(crate::contract::MatrixAt {
                    offset: base,
                    columns: columns as u8,
                    rows: rows as u8,
                    // A vec2 column aligns to 8 bytes, a vec3 or vec4 to 16.
                    column_stride: if rows == naga::VectorSize::Bi { 8 } else { 16 },
                })
            }
            TypeInner::Array {
                base: elem,
                size: n,
                stride,
            } => {
                let count = match n {
                    naga::ArraySize::Constant(n) => u64::from(n.get()),
                    _ => (size - base).div_ceil(u64::from(stride.max(1))),
                };
                for i in 0..count {
                    walk(module, elem, base + i * u64::from(stride), size, out);
                }
            }
            TypeInner::Struct { ref members, .. } => {
                for m in members {
                    walk(module, m.ty, base + u64::from(m.offset), size, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(module, ty, 0, size, &mut out);
    out
}

/// Whether `ty` is a runtime-sized array or a struct ending in one.
fn runtime_sized(module: &naga::Module, ty: Handle<naga::Type>) -> bool {
    match &module.types[ty].inner {
        TypeInner::Array {
            size: naga::ArraySize::Dynamic,
            ..
        } => true,
        TypeInner::Struct { members, .. } => {
            members.last().is_some_and(|m| runtime_sized(module, m.ty))
        }
        _ => false,
    }
}

/// A type as WGSL writes it, structs with their members, for messages.
fn describe(module: &naga::Module, ty: Handle<naga::Type>) -> String {
    let types = &module.types;
    match &types[ty].inner {
        TypeInner::Struct { members, span } => {
            let fields: Vec<String> = members
                .iter()
                .map(|m| {
                    format!(
                        "{}: {}",
                        m.name.as_deref().unwrap_or("_"),
                        types.type_to_string(m.ty)
                    )
                })
                .collect();
            format!(
                "struct {} {{ {} }} ({span} bytes)",
                types[ty].name.as_deref().unwrap_or("_"),
                fields.join(", ")
            )
        }
        _ => types.type_to_string(ty),
    }
}

/// The `@location` values an entry point takes (arguments, and members of struct arguments).
fn located_inputs(module: &naga::Module, ep: &naga::EntryPoint) -> Vec<(u32, Handle<naga::Type>)> {
    let mut out = Vec::new();
    for arg in &ep.function.arguments {
        match &arg.binding {
            Some(Binding::Location { location, .. }) => out.push((*location, arg.ty)),
            Some(_) => {}
            None => {
                if let TypeInner::Struct { members, .. } = &module.types[arg.ty].inner {
                    for m in members {
                        if let Some(Binding::Location { location, .. }) = m.binding {
                            out.push((location, m.ty));
                        }
                    }
                }
            }
        }
    }
    out
}

/// The `@location` values an entry point returns (its result, or members of a struct result).
fn located_outputs(module: &naga::Module, ep: &naga::EntryPoint) -> Vec<(u32, Handle<naga::Type>)> {
    let Some(result) = &ep.function.result else {
        return Vec::new();
    };
    match &result.binding {
        Some(Binding::Location { location, .. }) => vec![(*location, result.ty)],
        Some(_) => Vec::new(),
        None => match &module.types[result.ty].inner {
            TypeInner::Struct { members, .. } => members
                .iter()
                .filter_map(|m| match m.binding {
                    Some(Binding::Location { location, .. }) => Some((location, m.ty)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        },
    }
}

/// The workgroup size a compute pipeline gets from entry point `ep`. A size given by `override`s
/// takes the values the pipelines get (`constants`, else the overrides' defaults); that needs the
/// validation `info`, and without it (naga rejected the shader) the size is not known: `None`, as
/// it is when the overrides do not resolve ([`override_violations`] says why).
fn workgroup_size(
    module: &naga::Module,
    info: Option<&naga::valid::ModuleInfo>,
    ep: &naga::EntryPoint,
    constants: &naga::back::PipelineConstants,
) -> Option<[u32; 3]> {
    if ep.workgroup_size_overrides.is_none() {
        return Some(ep.workgroup_size);
    }
    let entry = Some((ShaderStage::Compute, ep.name.as_str()));
    let (resolved, _) =
        naga::back::pipeline_constants::process_overrides(module, info?, entry, constants).ok()?;
    let found = resolved.entry_points.iter().find(|e| e.name == ep.name);
    found.map(|e| e.workgroup_size)
}

/// Whether the contract's constants resolve the overrides of each of its entry points, as the
/// pipelines will: each key names an override of the shader (by `@id` where it has one) and fits
/// its type, and each override an entry point uses without a default has a value.
fn override_violations(
    contract: &Contract,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
) -> Vec<String> {
    use naga::back::pipeline_constants::{process_overrides, PipelineConstantError as E};
    let mut bad: Vec<String> = (contract.constants.iter())
        .filter_map(|(key, value)| constant_violation(contract, module, key, *value))
        .collect();
    if !bad.is_empty() {
        return bad;
    }
    let constants = contract.naga_constants();
    for (name, stage) in contract.entry_points() {
        if !module.entry_points.iter().any(|ep| ep.name == name) {
            continue;
        }
        let message = match process_overrides(module, info, Some((stage, name)), &constants) {
            Ok(_) => continue,
            Err(E::MissingValue(key)) => format!(
                "entry point `{name}`: override `{key}` has no default, and the profile's `constants` gives it no value (key `{key}`)"
            ),
            Err(e) => format!(
                "entry point `{name}`: its overrides do not resolve with the profile's `constants`: {e}"
            ),
        };
        if !bad.contains(&message) {
            bad.push(message);
        }
    }
    bad
}

/// What is wrong with constant `key` = `value`, if anything: no override of the shader has that
/// key, or the value does not fit the override's type.
fn constant_violation(
    contract: &Contract,
    module: &naga::Module,
    key: &str,
    value: f64,
) -> Option<String> {
    let id = key.parse::<u16>().ok();
    let found = module.overrides.iter().find(|(_, o)| match o.id {
        Some(_) => o.id == id,
        None => o.name.as_deref() == Some(key),
    });
    let Some((_, o)) = found else {
        return Some(unknown_constant(contract, module, key));
    };
    let TypeInner::Scalar(scalar) = module.types[o.ty].inner else {
        return None;
    };
    let why = fits(value, scalar).err()?;
    Some(format!(
        "constant `{key}`{}: {value} {why}",
        contract.constant_whence(key)
    ))
}

/// Whether a pipeline constant's `value` is one of `scalar`'s values, or why not. WebGPU truncates
/// a fraction given for an integer; here it is refused, as the mistake it most likely is.
fn fits(value: f64, scalar: naga::Scalar) -> Result<(), String> {
    use naga::ScalarKind::{Bool, Float, Sint, Uint};
    let bits = u32::from(scalar.width) * 8;
    let (min, max) = match scalar.kind {
        Sint => (
            -(2f64.powi(bits as i32 - 1)),
            2f64.powi(bits as i32 - 1) - 1.0,
        ),
        Uint => (0.0, 2f64.powi(bits as i32) - 1.0),
        Float if bits == 16 => (-65504.0, 65504.0),
        Float if bits == 32 => (f64::from(f32::MIN), f64::from(f32::MAX)),
        Bool | Float | naga::ScalarKind::AbstractInt | naga::ScalarKind::AbstractFloat => {
            return Ok(())
        }
    };
    let ty = match scalar.kind {
        Sint => format!("i{bits}"),
        Uint => format!("u{bits}"),
        _ => format!("f{bits}"),
    };
    if matches!(scalar.kind, Sint | Uint) && value.fract() != 0.0 {
        return Err(format!(
            "is not a whole number, as the override's type {ty} needs"
        ));
    }
    match (min..=max).contains(&value) {
        true => Ok(()),
        false => Err(format!(
            "does not fit the override's type {ty} ({min} to {max})"
        )),
    }
}

/// Why `key` of the contract's constants names no override: the overrides there are, and the
/// key an override has by name but must be given by its `@id`.
fn unknown_constant(contract: &Contract, module: &naga::Module, key: &str) -> String {
    let whence = contract.constant_whence(key);
    let named = |o: &naga::Override| match (o.id, &o.name) {
        (Some(id), Some(n)) => format!("`{id}` ({n})"),
        (Some(id), None) => format!("`{id}`"),
        (None, n) => format!("`{}`", n.as_deref().unwrap_or("?")),
    };
    let by_id = module
        .overrides
        .iter()
        .find(|(_, o)| o.id.is_some() && o.name.as_deref() == Some(key));
    if let Some((_, o)) = by_id {
        return format!(
            "constant `{key}`{whence}: the override `{key}` has an @id, so WebGPU keys it by number: write `{}` instead",
            o.id.unwrap_or_default()
        );
    }
    let keys: Vec<String> = module.overrides.iter().map(|(_, o)| named(o)).collect();
    match keys.is_empty() {
        true => format!("constant `{key}`{whence}: the shader declares no override"),
        false => format!(
            "constant `{key}`{whence} names no override of the shader; its overrides' keys: {}",
            keys.join(", ")
        ),
    }
}

/// Every way `module` breaks `contract` (entry points, stages, workgroup size, the vertex inputs
/// and fragment output, and each binding's address space and type), one message each; empty when
/// it keeps it. `info` is naga's validation of the module, when it passed: with it, a workgroup
/// size given by overrides is checked too.
pub fn contract_violations(
    contract: &Contract,
    module: &naga::Module,
    info: Option<&naga::valid::ModuleInfo>,
) -> Vec<String> {
    let mut bad = Vec::new();
    for (name, stage) in contract.entry_points() {
        let Some(ep) = module.entry_points.iter().find(|ep| ep.name == name) else {
            bad.push(format!(
                "entry point `{name}` is missing{}",
                contract.entry_whence(name)
            ));
            continue;
        };
        if ep.stage != stage {
            bad.push(format!(
                "entry point `{name}` must be a {stage:?} stage, is {:?}",
                ep.stage
            ));
            continue;
        }
        // A compute stage's workgroup size is checked with its overrides (override_violations).
        match stage {
            ShaderStage::Vertex => bad.extend(vertex_stage(contract, module, ep)),
            ShaderStage::Fragment => bad.extend(fragment_stage(contract, module, ep)),
            _ => {}
        }
    }
    for f in &contract.filled {
        bad.extend(f.problems.iter().cloned());
    }
    bad.extend(contract.palette_problems.iter().cloned());
    bad.extend(contract.camera_problems.iter().cloned());
    bad.extend(contract.immediates.problems.iter().cloned());
    if let Some(info) = info {
        bad.extend(override_violations(contract, module, info));
        bad.extend(stage_bindings(contract, module, info));
    }
    bad.extend(binding_violations(contract, module, info));
    bad.extend(in_place_violations(contract));
    bad
}

/// An output skinned in place (`compute.output` at `compute.vertices`' binding) writes each skinned
/// field over its source: the same stride, the position where the vertices' is, and a normal or
/// tangent where the vertices hold theirs.
fn in_place_violations(contract: &Contract) -> Vec<String> {
    let (Some(from), Some(out)) = (contract.pulled.as_ref(), contract.packed.as_ref()) else {
        return Vec::new();
    };
    if !contract.in_place() {
        return Vec::new();
    }
    let whence = contract.slot(Role::Skinned).whence();
    let at = |o: Option<u32>| o.map_or("nowhere".to_string(), |o| format!("byte {o}"));
    let mut bad = Vec::new();
    if out.stride != from.stride {
        bad.push(format!(
            "`compute.output` is skinned in place, at `compute.vertices`' binding, so its stride ({} bytes) must be the vertices' ({}){whence}",
            out.stride, from.stride
        ));
    }
    let fields = [
        ("position", Some(out.position), from.position),
        ("normal", out.frames.normal, from.frames.normal),
        ("tangent", out.frames.tangent, from.frames.tangent),
    ];
    for (name, written, source) in fields {
        if written.is_some() && written != source {
            bad.push(format!(
                "`compute.output.{name}` is skinned in place, so it must be written over the vertices' {name}: it is at {}, the source {name} at {}{whence}",
                at(written),
                at(source)
            ));
        }
    }
    let (o, f) = (&out.frames, &from.frames);
    let encodings = [
        (
            "normal",
            o.normal.is_some(),
            o.normal_encoding,
            f.normal_encoding,
        ),
        (
            "tangent",
            o.tangent.is_some(),
            o.tangent_encoding,
            f.tangent_encoding,
        ),
    ];
    for (name, given, written, source) in encodings {
        if given && written != source {
            bad.push(format!(
                "`compute.output.{name}_encoding` is {}, and the output is skinned in place over the vertices, whose {name} is {}: one buffer holds one encoding{whence}",
                written.name(),
                source.name()
            ));
        }
    }
    bad
}

/// Where a profile's joints or weights attribute has the right scalars in another number of
/// lanes than the contract reads: the `max_influences` that reads them.
fn lanes_hint(contract: &Contract, role: Role, inner: &TypeInner) -> Option<String> {
    let four = match role {
        Role::Joints => contract.formats.vertex_joints.elem(),
        Role::Weights => Elem::Vec4F32,
        _ => return None,
    };
    contract.profile.as_ref()?;
    // Fewer than 4 are read from one set alone.
    if contract.influence_sets > 1 {
        return None;
    }
    if role == Role::Weights {
        let (lanes, read) = (contract.lanes, contract.weight_lanes());
        if read < lanes && Elem::Vec4F32.lanes(lanes).matches(inner) {
            return Some(format!(
                ": a vec{lanes} reads every weight of {lanes} influences: leave out `last_weight: implied`"
            ));
        }
        if read == lanes && lanes >= 3 && Elem::Vec4F32.lanes(lanes - 1).matches(inner) {
            let fewer = lanes - 1;
            return Some(format!(
                ": a shader that reads {fewer} weights says `max_influences: {fewer}` where it reads {fewer} joints too, or `last_weight: implied` where it reads {lanes} and takes the last weight as one minus the others"
            ));
        }
    }
    // Two u32 joints may be four u16 ones: with 4 read, the pairs' own hint says so.
    let pairs = Elem::Attribute(wgpu::VertexFormat::Uint32x2).matches(inner);
    if role == Role::Joints && pairs {
        return (contract.lanes < 4).then(|| {
            format!(
                ": a vec2<u32> holds two joints where the shader reads 2 influences a vertex (`max_influences: 2`), or four u16 ones (`format: u16x4`) where it reads 4 (no `max_influences`), not the {} `max_influences` says",
                contract.lanes
            )
        });
    }
    let n = (2..=4).find(|&n| n != contract.lanes && four.lanes(n).matches(inner))?;
    Some(match n {
        4 => ": a vec4 reads 4 influences a vertex: leave out `max_influences`".into(),
        n => format!(": a shader that reads {n} influences a vertex, a vec{n} of joints and one of weights, says `max_influences: {n}`"),
    })
}

/// The vertex entry point's inputs: each of the contract's attributes, and no others.
fn vertex_stage(contract: &Contract, module: &naga::Module, ep: &naga::EntryPoint) -> Vec<String> {
    let name = &ep.name;
    let mut bad = Vec::new();
    let inputs = located_inputs(module, ep);
    for input in &contract.vertex_inputs {
        let (loc, want) = (input.location(), input.ty);
        let want_ok = |inner: &TypeInner| {
            want.matches(inner) || input.also.is_some_and(|also| also.matches(inner))
        };
        let whence =
            (input.origin.as_ref()).map_or(String::new(), |o| format!(" (the profile's {o})"));
        match inputs.iter().find(|(l, _)| *l == loc) {
            None => bad.push(format!(
                "entry point `{name}`: input @location({loc}) is missing (expected {}){whence}",
                want.wgsl()
            )),
            Some((_, ty)) if !want_ok(&module.types[*ty].inner) => {
                let inner = &module.types[*ty].inner;
                // Joints read as floats take the float format, and the other way round.
                let hint = match input.role {
                    _ if contract.profile.is_none() => "",
                    _ if input.pair.is_some() && Elem::Vec4F32.matches(inner) => {
                        ": a vec4<f32> holding two influences, (joint, weight, joint, weight), is `vertex.pairs`' `format: vec4`"
                    }
                    _ if input.pair.is_some() && input.pair_influences() == 2 => {
                        ": with `format: vec4`, each of `vertex.pairs` is a vec4<f32> holding two influences, (joint, weight, joint, weight)"
                    }
                    _ if input.pair.is_some() => {
                        ": each of `vertex.pairs` is a vec2<f32> holding one influence, (joint index, weight)"
                    }
                    Role::Joints if Elem::Vec4F32.matches(inner) => {
                        ": joints read as floats are `format: f32x4`"
                    }
                    Role::Joints if Elem::Vec4U32.matches(inner) => {
                        ": joints read as integers are `format: u8x4`, `u16x4` or `u32x4`"
                    }
                    Role::Joints if Elem::Vec4I32.matches(inner) => {
                        ": joints read as signed integers are `format: i32x4`"
                    }
                    Role::Joints
                        if Elem::Attribute(wgpu::VertexFormat::Uint32x2).matches(inner) =>
                    {
                        ": u16 joints read as vec2<u32> pairs are `format: u16x4`"
                    }
                    Role::Positions
                        if Elem::Attribute(wgpu::VertexFormat::Float32x2).matches(inner) =>
                    {
                        ": a planar position, x and y alone, is `format: vec2`"
                    }
                    Role::Positions
                        if Elem::Vec3F32.matches(inner) || Elem::Vec4F32.matches(inner) =>
                    {
                        ": a position of three floats is `format: vec3` (`vec4` for a vec4 input)"
                    }
                    Role::Normals if Elem::Vec4F32.matches(inner) => {
                        ": a normal read as a vec4 (w 0) is `vertex.normal`'s `format: vec4`"
                    }
                    _ => "",
                };
                let lanes = (input.pair.is_none())
                    .then(|| lanes_hint(contract, input.role, inner))
                    .flatten();
                let hint = lanes.as_deref().unwrap_or(hint);
                bad.push(format!(
                    "entry point `{name}`: input @location({loc}) must be {}{}, is {}{whence}{hint}",
                    want.wgsl(),
                    input
                        .also
                        .map_or(String::new(), |also| format!(" (or {})", also.wgsl())),
                    describe(module, *ty)
                ))
            }
            Some(_) => {}
        }
    }
    let mut locations: Vec<u32> = contract
        .vertex_inputs
        .iter()
        .map(|v| v.location())
        .collect();
    locations.sort_unstable();
    for (loc, ty) in inputs
        .iter()
        .filter(|(l, _)| contract.input_at(*l).is_none())
    {
        bad.push(format!(
            "entry point `{name}`: input @location({loc}) ({}) is not a vertex attribute of the contract ({}), nor a 32-bit scalar or vector the harness can feed zeros",
            describe(module, *ty),
            list(&locations)
        ));
    }
    for value in &contract.input_values {
        let loc = value.location;
        let n = value.values.len();
        match contract.input_at(loc) {
            Some(v) if v.role == Role::Zeros => {
                if v.attribute.format.size() as usize != 4 * n {
                    bad.push(format!(
                        "entry point `{name}`: input @location({loc}) is {}, {} numbers, and the profile gives {n} ({})",
                        v.ty.wgsl(),
                        v.attribute.format.size() / 4,
                        value.origin
                    ));
                }
            }
            Some(v) => bad.push(format!(
                "entry point `{name}`: input @location({loc}) has a role{}, and `vertex.inputs` gives only inputs the harness would feed zeros ({})",
                (v.origin.as_ref()).map_or(String::new(), |o| format!(" ({o})")),
                value.origin
            )),
            None => bad.push(format!(
                "entry point `{name}`: has no input @location({loc}) the harness feeds ({}); its inputs are at {}",
                value.origin,
                list(&locations)
            )),
        }
    }
    let outputs = located_outputs(module, ep);
    for out in &contract.vertex_outputs {
        let (loc, want) = (out.location, out.ty);
        let whence = out
            .origin
            .as_ref()
            .map_or(String::new(), |o| format!(" (the profile's {o})"));
        match outputs.iter().find(|(l, _)| *l == loc) {
            None => bad.push(format!(
                "entry point `{name}`: output @location({loc}) is missing (expected {}){whence}",
                want.wgsl()
            )),
            Some((_, ty)) if !want.matches(&module.types[*ty].inner) => {
                // A vec3 tangent out of a vec4 source: the direction alone, as engines drop the
                // handedness there.
                let hint = if out.role == Role::SkinnedTangents
                    && want == Elem::Vec4F32
                    && Elem::Vec3F32.matches(&module.types[*ty].inner)
                {
                    ": a vec3 skinned tangent is its direction alone, give `vertex.skinned_tangent`'s `format: vec3`"
                } else {
                    ""
                };
                bad.push(format!(
                    "entry point `{name}`: output @location({loc}) must be {}, is {}{whence}{hint}",
                    want.wgsl(),
                    describe(module, *ty)
                ))
            }
            Some(_) => {}
        }
    }
    bad
}

/// The fragment entry point's colour output at location 0.
fn fragment_stage(
    contract: &Contract,
    module: &naga::Module,
    ep: &naga::EntryPoint,
) -> Option<String> {
    let want = contract.fragment_output;
    let returns = match located_outputs(module, ep).iter().find(|(l, _)| *l == 0) {
        None => ep
            .function
            .result
            .as_ref()
            .map_or("nothing".into(), |r| describe(module, r.ty)),
        Some((_, ty)) if !want.matches(&module.types[*ty].inner) => describe(module, *ty),
        Some(_) => return None,
    };
    Some(format!(
        "entry point `{}` must return {} at @location(0), returns {returns}",
        ep.name,
        want.wgsl()
    ))
}

/// Each bound global against the contract's slot at its group and binding, then the slots no
/// global fills. A global outside the contract that none of its entry points uses (a material's
/// texture, when the harness draws with its own fragment stage) is left alone: no pipeline binds
/// it. Without `info` (naga rejected the shader) every global counts as used.
fn binding_violations(
    contract: &Contract,
    module: &naga::Module,
    info: Option<&naga::valid::ModuleInfo>,
) -> Vec<String> {
    let mut bad = Vec::new();
    let groups = contract.groups();
    let mut seen: Vec<(u32, u32)> = Vec::new();
    let used = |var: Handle<naga::GlobalVariable>| {
        info.is_none_or(|info| {
            module.entry_points.iter().enumerate().any(|(i, ep)| {
                contract.pipeline_of(&ep.name).is_some() && !info.get_entry_point(i)[var].is_empty()
            })
        })
    };
    for (handle, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        let name = var.name.as_deref().unwrap_or("?");
        if contract.slot_at(binding.group, binding.binding).is_none() && !used(handle) {
            continue;
        }
        // A buffer outside the skinning roles (a world matrix, a light) can be filled, a
        // texture or sampler (morph targets, a material's) bound.
        let hint = match var.space {
            AddressSpace::Uniform | AddressSpace::Storage { .. } => format!(
                " (a buffer outside the skinning roles: a layout profile's `bindings` can have the harness fill @group({}) @binding({}))",
                binding.group, binding.binding
            ),
            AddressSpace::Handle
                if crate::resource::Resource::of(&module.types, var.ty).is_ok() =>
            {
                format!(
                    " (a texture or sampler outside the skinning roles: a layout profile's `bindings` can have the harness bind @group({}) @binding({}) as the shader declares it)",
                    binding.group, binding.binding
                )
            }
            _ => String::new(),
        };
        if !groups.contains(&binding.group) {
            bad.push(format!(
                "`{name}` is in group {}; the contract uses group{} {} only{hint}",
                binding.group,
                if groups.len() == 1 { "" } else { "s" },
                list(&groups)
            ));
            continue;
        }
        let Some(slot) = contract.slot_at(binding.group, binding.binding) else {
            bad.push(format!(
                "`{name}` uses binding {}; the contract has bindings {}{hint}",
                binding.binding,
                list(&contract.bindings_in(binding.group))
            ));
            continue;
        };
        if seen.contains(&(binding.group, binding.binding)) {
            bad.push(format!(
                "binding {} (`{name}`) is declared twice",
                binding.binding
            ));
            continue;
        }
        seen.push((binding.group, binding.binding));
        if slot.ty == crate::contract::Want::Filled && !slot.space.matches(var.space) {
            // A handle the harness binds took its resource as the buffers were filled: what is
            // left cannot be bound.
            let why = match crate::resource::Resource::of(&module.types, var.ty) {
                Err(why) if var.space == AddressSpace::Handle => why,
                _ => format!(
                    "{}: the harness fills buffers (uniform or storage) and binds sampled textures and samplers",
                    space_wgsl(var.space)
                ),
            };
            bad.push(format!(
                "binding {} (`{name}`) is {why}{}",
                binding.binding,
                slot.whence()
            ));
        } else if !slot.space.is_buffer() && !slot.space.matches(var.space) {
            bad.push(format!(
                "binding {} (`{name}`) must be a {}, is {}{}",
                binding.binding,
                slot.ty.wgsl(),
                space_wgsl(var.space),
                slot.whence()
            ));
            continue;
        } else if !slot.space.matches(var.space) {
            bad.push(format!(
                "binding {} (`{name}`) must be var<{}>, is {}{}",
                binding.binding,
                slot.space.wgsl(),
                space_wgsl(var.space),
                slot.whence()
            ));
        }
        if contract.member(slot.role).is_some() {
            bad.extend(member_violations(contract, module, slot, name, var.ty));
        } else if is_palette_array(contract, slot) {
            let ty = crate::contract::unwrapped(&module.types, var.ty);
            if !sized_palette_ok(contract, slot, &module.types, ty) {
                // An array of structs: its element's members too.
                let of = match element(module, ty) {
                    e if e != ty => format!(" of {}", describe(module, e)),
                    _ => String::new(),
                };
                bad.push(format!(
                    "binding {} (`{name}`) must be {}, is {}{of}{}",
                    binding.binding,
                    palette_array_wgsl(contract, slot),
                    describe(module, var.ty),
                    slot.whence()
                ));
            }
            // Bare slots the shader reads three a joint, which only rows take.
            let e = &contract.palette_element;
            let handle = global_handle_at(module, slot.group, slot.binding);
            let read = handle.and_then(|g| crate::slots::per_joint(module, g));
            if e.slots == 4 && !e.rows && read == Some(3) {
                bad.push(format!(
                    "binding {} (`{name}`) is read three vec4<f32> a joint, an affine's: give `matrix: rows` (each its row) or `columns_translation` (each a column's xyz, a translation component in w), not columns, four a joint{}",
                    binding.binding,
                    slot.whence()
                ));
            }
            // Columns with the translation in w come three a joint; a fourth has no meaning.
            if e.affine == crate::contract::Affine::ColumnsTranslation
                && (e.four_rows || e.slots == 4)
            {
                bad.push(format!(
                    "binding {} (`{name}`) holds four vec4<f32> a joint (a mat4x4<f32>, or slots read four a joint): `matrix: columns_translation` packs three, a mat3x4<f32> or slots read three a joint{}",
                    binding.binding,
                    slot.whence()
                ));
            }
        } else if !slot.ty.matches(&module.types, var.ty) {
            bad.push(format!(
                "binding {} (`{name}`) must be {}, is {}{}{}",
                binding.binding,
                slot.ty.wgsl(),
                describe(module, var.ty),
                stream_hint(contract, slot, module, var.ty),
                slot.whence()
            ));
        } else if let Some((what, why)) = struct_fields(contract, module, slot, var.ty) {
            bad.extend(why.into_iter().map(|(key, w)| {
                // The field's own line, as the profile gives it (`joints[1]` under `joints`).
                let key = key.split('[').next().unwrap_or(&key);
                let whence = match contract.field_whence(&format!("{what}.{key}")) {
                    w if w.is_empty() => slot.whence(),
                    w => w,
                };
                format!("binding {} (`{name}`): {w}{whence}", binding.binding)
            }));
        } else if slot.ty.is_uniform_struct() {
            // The contract's uniforms are bound as exactly their size; a larger struct (a
            // `vec3<u32>` pad aligns to 16 and doubles it) reads past them and fails to bind.
            let size = module.types[var.ty].inner.size(module.to_ctx());
            let limit = contract.uniform_bytes;
            if size > limit {
                bad.push(format!(
                    "binding {} (`{name}`) is {}; the contract's uniform is {limit} bytes and is bound as exactly that (a vec3 or vec4 member aligns to 16 bytes: write the padding as u32s)",
                    binding.binding,
                    describe(module, var.ty)
                ));
            }
        }
    }
    for slot in &contract.slots {
        let b = slot.binding;
        if !seen.contains(&(slot.group, b)) {
            let declared = if slot.space.is_buffer() {
                format!("var<{}> of {}", slot.space.wgsl(), slot.ty.wgsl())
            } else {
                format!("var of type {}", slot.ty.wgsl())
            };
            bad.push(format!(
                "binding {b} ({}) is missing: expected @group({}) @binding({b}) {declared}{}",
                slot.holds,
                slot.group,
                slot.whence()
            ));
        }
    }
    bad
}

/// For a normal or tangent buffer of its own declared in the other form than its profile gives
/// (typed against byte-addressed), the profile's way to the shader's.
fn stream_hint(
    contract: &Contract,
    slot: &crate::contract::Slot,
    module: &naga::Module,
    ty: Handle<naga::Type>,
) -> &'static str {
    use crate::contract::{Elem, Want};
    let Some(stream) = contract.streams.of(slot.role) else {
        return "";
    };
    let types = &module.types;
    let typed = Want::Positions.matches(types, ty) || Want::Array(Elem::Vec4F32).matches(types, ty);
    match stream.byte_addressed {
        true if typed => ": a typed array of vec3 or vec4 (16 bytes apart) is given without `stride` and `offset`",
        false if Want::OutputWords.matches(types, ty) => ": a byte-addressed buffer gives `stride`, the bytes of a vertex (12 for tightly packed vec3s)",
        _ => "",
    }
}

/// For a byte-addressed buffer declared as an array of a vertex struct: the profile's name for it
/// and why its fields cannot be read from it ([`crate::vertex_struct::violations`]); None for any
/// other binding, or where they can.
fn struct_fields(
    contract: &Contract,
    module: &naga::Module,
    slot: &crate::contract::Slot,
    ty: Handle<naga::Type>,
) -> Option<(String, Vec<(String, String)>)> {
    use crate::contract::Want;
    let none = Vec::new();
    // A pulling vertex stage's stream, named as the profile's list names it.
    let stream_field = (slot.origin.as_deref())
        .and_then(|o| o.split("field `").nth(1)?.split('`').next())
        .filter(|f| f.starts_with("vertex.streams["));
    let stream = contract.streams.of(slot.role);
    let (fields, what, profile_stride, named) = match (slot.ty, stream) {
        // A normal or tangent stream of its own: the one direction at its offset.
        (Want::OutputWords, Some(stream)) => {
            let what = match slot.role {
                Role::Normals => "compute.normals",
                Role::Tangents => "compute.tangents",
                Role::SkinnedNormals => "compute.skinned_normals",
                _ => "compute.skinned_tangents",
            };
            let field = ("offset".to_string(), stream.offset, stream.bytes());
            let bits = match stream.encoding.packed() {
                true => crate::vertex_struct::Bits::Int,
                false => crate::vertex_struct::Bits::Float,
            };
            let fields = vec![(field, bits)];
            (fields, what, stream.stride, &none)
        }
        (Want::Words, _) => {
            let p = contract.pulled_as(slot.role)?;
            let what = match (slot.role, contract.has(crate::contract::Pipeline::Compute)) {
                (Role::Joints, _) if slot.used_by(crate::contract::Pipeline::Render) => {
                    "vertex.influences"
                }
                (Role::Joints, _) => "compute.influences",
                (_, true) => "compute.vertices",
                (_, false) => "vertex.vertices",
            };
            (
                crate::vertex_struct::pulled_fields(p),
                stream_field.unwrap_or(what),
                p.stride,
                &p.members,
            )
        }
        (Want::OutputWords, _) => {
            let p = contract.packed.as_ref()?;
            let fields = crate::vertex_struct::packed_fields(p);
            (fields, "compute.output", p.stride, &p.members)
        }
        _ => return None,
    };
    let owned = what.to_string();
    if let Some(why) = whole_elements(module, ty, profile_stride) {
        return Some((owned, vec![("stride".into(), why)]));
    }
    let element = crate::vertex_struct::element(module, ty);
    let unplaced =
        crate::vertex_struct::unplaced(module, element, named, what, || describe(module, ty));
    if !unplaced.is_empty() {
        return Some((owned, unplaced));
    }
    let (s, stride) = element?;
    if !named.is_empty() {
        // Offsets read from the struct: the rules numbers given are held to when it loads.
        if let Some(why) = crate::vertex_struct::placed_violation(profile_stride, &fields, what) {
            return Some((owned, vec![why]));
        }
    }
    let why = crate::vertex_struct::violations(module, s, stride, &fields, what, profile_stride);
    (!why.is_empty()).then_some((owned, why))
}

/// For a byte-addressed buffer declared as an array of vectors (`array<vec4<f32>>`): why a vertex
/// of `stride` bytes cannot start on an element, which the shader indexes whole; None for any
/// other buffer, or a stride of whole elements.
fn whole_elements(module: &naga::Module, ty: Handle<naga::Type>, stride: u32) -> Option<String> {
    let ty = crate::contract::unwrapped(&module.types, ty);
    let TypeInner::Array {
        base, stride: e, ..
    } = module.types[ty].inner
    else {
        return None;
    };
    let vector = matches!(module.types[base].inner, TypeInner::Vector { .. });
    (vector && !stride.is_multiple_of(e)).then(|| {
        format!(
            "a vertex of {stride} bytes starts inside an element of {} ({e} bytes), which the shader indexes whole: the stride is a multiple of {e}",
            describe(module, ty)
        )
    })
}

/// Whether `slot` holds a palette array (the palette's, or its inverse binds').
fn is_palette_array(contract: &Contract, slot: &crate::contract::Slot) -> bool {
    matches!(slot.role, Role::Palette | Role::InverseBinds) && contract.palette_texture.is_none()
}

/// Whether `ty` is the palette array `want` says, of the profile's elements: runtime-sized in
/// storage, fixed-length in a uniform.
fn palette_array_ok(
    contract: &Contract,
    want: crate::contract::Want,
    types: &naga::UniqueArena<naga::Type>,
    ty: Handle<naga::Type>,
) -> bool {
    use crate::contract::Want;
    let e = &contract.palette_element;
    // A plain palette's arrays as the binding's type says, or of its element's other forms (a
    // mat4x3's affine columns).
    if e.is_plain() && want.matches(types, ty) {
        return true;
    }
    match (want, &types[ty].inner) {
        (
            Want::FixedMatrices,
            TypeInner::Array {
                base,
                size: naga::ArraySize::Constant(_),
                ..
            },
        )
        | (
            Want::Array(_),
            TypeInner::Array {
                base,
                size: naga::ArraySize::Dynamic,
                ..
            },
        ) => e.matches(types, &types[*base].inner),
        _ => false,
    }
}

/// Whether `ty` is the palette array a binding (or a struct member) may be: as
/// [`palette_array_ok`] says, or, in storage, fixed-length as well (a palette of N matrices in
/// per-instance storage data, or a storage buffer of N, its length bounding the cases).
fn sized_palette_ok(
    contract: &Contract,
    slot: &crate::contract::Slot,
    types: &naga::UniqueArena<naga::Type>,
    ty: Handle<naga::Type>,
) -> bool {
    let fixed = crate::contract::Want::FixedMatrices;
    palette_array_ok(contract, slot.ty, types, ty)
        || (matches!(slot.space, crate::contract::Space::Storage { .. })
            && palette_array_ok(contract, fixed, types, ty))
}

/// What [`palette_array_ok`] wants, for messages.
fn palette_array_wgsl(contract: &Contract, slot: &crate::contract::Slot) -> String {
    let e = &contract.palette_element;
    match (slot.ty, e.is_plain()) {
        (ty, true) => ty.wgsl(),
        (crate::contract::Want::FixedMatrices, false) => format!("array<E, N>, E {}", e.wgsl()),
        _ => format!("array<E>, E {}", e.wgsl()),
    }
}

/// A binding whose role's data is a member of its struct (the palette in an engine's mesh
/// uniform, a camera matrix after a model matrix): the member is there with the role's type; a
/// camera member of the palette's struct is checked with the palette.
fn member_violations(
    contract: &Contract,
    module: &naga::Module,
    slot: &crate::contract::Slot,
    var: &str,
    ty: Handle<naga::Type>,
) -> Vec<String> {
    let mut wants = vec![(slot.role, slot.ty)];
    if slot.role == Role::Palette && contract.camera_in_palette {
        wants.push((Role::View, crate::contract::Want::Matrix));
    }
    let b = slot.binding;
    let mut bad = Vec::new();
    if let Some(n) = contract
        .palette_normals
        .as_ref()
        .filter(|_| slot.role == Role::Palette)
    {
        let name = &n.member.name;
        match member_of(module, ty, Some(&n.member)) {
            None => bad.push(format!(
                "binding {b} (`{var}`) has no member `{name}` for the joints' normal matrices: it is {}{}",
                describe(module, ty),
                n.member.whence()
            )),
            Some(m)
                if !crate::contract::ParallelNormals::matches(
                    &module.types,
                    &module.types[m.ty].inner,
                ) =>
            {
                bad.push(format!(
                    "member `{name}` of binding {b} (`{var}`) must be array<mat3x3<f32>, N> or array<mat4x4<f32>, N> (each joint's normal matrix), is {}{}",
                    module.types.type_to_string(m.ty),
                    n.member.whence()
                ))
            }
            Some(_) => {}
        }
    }
    for (role, want) in wants {
        let Some(member) = contract.member(role) else {
            continue;
        };
        let name = member.name.as_str();
        // The camera's may be a dotted path into a nested struct.
        let found = match &module.types[element(module, ty)].inner {
            TypeInner::Struct { .. } => filled_member(module, ty, name, ""),
            _ => {
                bad.push(format!(
                    "binding {b} (`{var}`) must be a struct with a member `{name}`, is {}{}",
                    describe(module, ty),
                    member.whence()
                ));
                return bad;
            }
        };
        match found {
            // A path's step that is missing, as the path reads it.
            Err(why) if name.contains('.') => {
                bad.push(format!("binding {b} (`{var}`): {why}{}", member.whence()))
            }
            Err(_) => bad.push(format!(
                "binding {b} (`{var}`) has no member `{name}`: it is {}{}",
                describe(module, ty),
                member.whence()
            )),
            Ok(m)
                if !if role == Role::Palette {
                    sized_palette_ok(contract, slot, &module.types, m.ty)
                } else {
                    want.matches(&module.types, m.ty)
                } =>
            {
                bad.push(format!(
                    "member `{name}` of binding {b} (`{var}`) must be {}, is {}{}",
                    match want {
                        crate::contract::Want::Matrix => "mat4x4<f32>".into(),
                        _ if role == Role::Palette => palette_array_wgsl(contract, slot),
                        w => w.wgsl(),
                    },
                    module.types.type_to_string(m.ty),
                    member.whence()
                ))
            }
            Ok(_) => {}
        }
    }
    bad
}

/// Bindings an entry point uses outside its pipeline's (SPEC.md: the compute pipeline has bindings
/// 0 to 5, the render pipeline 0 and 6); the pipelines are built with exactly theirs.
fn stage_bindings(
    contract: &Contract,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
) -> Vec<String> {
    let mut bad = Vec::new();
    for (i, ep) in module.entry_points.iter().enumerate() {
        let Some(pipeline) = contract.pipeline_of(&ep.name) else {
            continue;
        };
        let uses = info.get_entry_point(i);
        for (handle, var) in module.global_variables.iter() {
            let Some(b) = &var.binding else { continue };
            // Bindings outside the contract have their own message.
            let Some(slot) = contract.slot_at(b.group, b.binding) else {
                continue;
            };
            if uses[handle].is_empty() || slot.used_by(pipeline) {
                continue;
            }
            bad.push(format!(
                "entry point `{}` uses binding {} (`{}`); the {} pipeline has bindings {}",
                ep.name,
                b.binding,
                var.name.as_deref().unwrap_or("?"),
                pipeline.name(),
                list(&contract.bindings_of(pipeline))
            ));
        }
    }
    bad
}

/// An address space as WGSL writes it.
fn space_wgsl(space: AddressSpace) -> String {
    match space {
        AddressSpace::Storage { access } if access.contains(StorageAccess::STORE) => {
            "var<storage, read_write>".into()
        }
        AddressSpace::Storage { .. } => "var<storage, read>".into(),
        AddressSpace::Uniform => "var<uniform>".into(),
        AddressSpace::Handle => "a texture or sampler".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn shader(source: &str) -> Shader {
        Shader::new("test.wgsl", source)
    }

    pub(crate) fn default_source() -> String {
        std::fs::read_to_string(crate::config::project_root().join("shaders/skinning.wgsl"))
            .unwrap()
    }

    #[test]
    fn default_shader_validates() {
        shader(&default_source()).validate().unwrap();
    }

    #[test]
    fn syntax_error_is_located() {
        let src = default_source().replace("let i = id.x;", "let i = id.x");
        let msg = shader(&src).validate().unwrap_err().to_string();
        assert!(msg.contains("test.wgsl:"), "{msg}");
    }

    #[test]
    fn bindings_outside_the_contract_count_only_where_its_entry_points_use_them() {
        // A material's texture and a light uniform, read by a fragment stage the contract does
        // not name: no pipeline of the harness binds them.
        let material = "\n@group(1) @binding(0) var tex: texture_2d<f32>;\n@group(1) @binding(1) var samp: sampler;\n@group(0) @binding(7) var<uniform> light: vec4<f32>;\n@fragment fn fs_material(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> { return textureSample(tex, samp, uv) * light; }\n";
        shader(&(default_source() + material)).validate().unwrap();
        // The same light read by the contract's fragment stage: it would be unbound.
        let src = default_source().replacen("fn fs_skin(", "fn fs_skin_unlit(", 1)
            + &material.replace("fn fs_material(", "fn fs_skin(");
        let msg = shader(&src).validate().unwrap_err().to_string();
        assert!(
            msg.contains("`light` uses binding 7; the contract has bindings 0 to 6")
                && msg.contains("`tex` is in group 1; the contract uses group 0 only"),
            "{msg}"
        );
    }

    #[test]
    fn attributes_the_profile_does_not_name_are_fed_zeros() {
        // A texture coordinate beside the contract's three attributes.
        let src = default_source().replacen(
            "@location(2) weight: vec4<f32>,",
            "@location(2) weight: vec4<f32>,\n    @location(5) uv: vec2<f32>,",
            1,
        );
        assert_ne!(src, default_source(), "the default shader's inputs changed");
        let s = shader(&src);
        s.validate().unwrap();
        let zeros: Vec<_> = (s.contract.vertex_inputs.iter())
            .filter(|v| v.role == Role::Zeros)
            .map(|v| (v.location(), v.attribute.format, v.ty.wgsl()))
            .collect();
        assert_eq!(zeros, [(5, wgpu::VertexFormat::Float32x2, "vec2<f32>")]);
    }

    #[test]
    fn a_camera_matrix_in_a_larger_struct_is_bound_as_the_struct() {
        let c = |src: &str| {
            let path = Path::new("target/test-camera/s.wgsl");
            let mut contract = Contract::builtin();
            let view = contract.slots.iter_mut().find(|s| s.role == Role::View);
            view.unwrap().ty = crate::contract::Want::Matrix;
            Shader::held_to(path.into(), src.to_string(), contract, None)
                .contract
                .camera_struct
                .len()
        };
        let view = "struct V { clip: mat4x4<f32>, eye: vec3<f32>, exposure: f32, viewport: vec4<f32> }\n@group(0) @binding(6) var<uniform> view: V;";
        assert_eq!(c(view), 96);
        assert_eq!(
            c("@group(0) @binding(6) var<uniform> view: mat4x4<f32>;"),
            64
        );
    }

    /// The contract a profile's text describes.
    fn profile_contract(text: &str) -> Contract {
        crate::profile::Profile::parse(Path::new("p.profile.yaml"), text)
            .unwrap()
            .contract()
    }

    #[test]
    fn u16_joints_taken_as_vec2_pairs_are_read_as_two_u32s() {
        let profile = "palette: { group: 0, binding: 1 }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1, format: u16x4 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 0, form: matrix }\n";
        let contract = profile_contract(profile);
        let held = |joints: &str| {
            let src = format!("@group(0) @binding(0) var<uniform> vp: mat4x4<f32>;\n@group(0) @binding(1) var<storage, read> palette: array<mat4x4<f32>>;\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: {joints}, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> {{ return vp * (w.x * palette[j.x & 0xffffu]) * vec4<f32>(p, 1.0); }}\n");
            Shader::held_to("test.wgsl".into(), src, contract.clone(), None)
        };
        let format = |s: &Shader| s.contract.input(Role::Joints).unwrap().attribute.format;
        let pairs = held("vec2<u32>");
        pairs.validate().unwrap();
        assert_eq!(format(&pairs), wgpu::VertexFormat::Uint32x2);
        let four = held("vec4<u32>");
        four.validate().unwrap();
        assert_eq!(format(&four), wgpu::VertexFormat::Uint16x4);
        // Three u32s hold no whole number of u16 pairs.
        assert!(held("vec3<u32>").validate().is_err());
    }

    #[test]
    fn a_count_member_is_a_u32_or_i32_of_the_filled_struct() {
        let profile = "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\nbindings:\n  - { group: 0, binding: 5, count: n }\n";
        let contract = profile_contract(profile);
        let held_as = |contract: &Contract, member: &str, ty: &str, read: &str| {
            let src = format!("struct P {{ scale: f32, {member}: {ty} }}\n@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;\n@group(0) @binding(1) var<storage, read> ps: array<vec4<f32>>;\n@group(0) @binding(2) var<storage, read> js: array<vec4<u32>>;\n@group(0) @binding(3) var<storage, read> ws: array<vec4<f32>>;\n@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;\n@group(0) @binding(5) var<uniform> params: P;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{ if (g.x >= u32(params.{read})) {{ return; }} out[g.x] = vec4<f32>((bones[js[g.x].x] * vec4<f32>(ps[g.x].xyz * ws[g.x].x * params.scale, 1.0)).xyz, 0.0); }}\n");
            Shader::held_to("test.wgsl".into(), src, contract.clone(), None)
        };
        let held = |member: &str, ty: &str| held_as(&contract, member, ty, member);
        // A lane of a vector member: lane y of `n` at byte 16.
        let lane = profile_contract(&profile.replace("count: n", "count: n.y"));
        let good = held_as(&lane, "n", "vec4<u32>", "n.y");
        good.validate().unwrap();
        assert_eq!(
            good.contract.filled[0].count.as_ref().unwrap().offset,
            Some(20)
        );
        let lane = profile_contract(&profile.replace("count: n", "count: n.z"));
        let msg = (held_as(&lane, "n", "vec2<u32>", "n.y").validate())
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("`n.z` holds the vertex count, but `n` is a vec2<u32>, with no lane z"),
            "{msg}"
        );
        let good = held("n", "u32");
        good.validate().unwrap();
        let count = good.contract.filled[0].count.as_ref().unwrap();
        assert_eq!(count.offset, Some(4));
        let msg = held("n", "f32").validate().unwrap_err().to_string();
        assert!(
            msg.contains("member `n` holds the vertex count, so it must be a u32 or i32 (or a lane of a vector of them: `n.x`), and `n` is f32")
                && msg.contains("bindings[0].count"),
            "{msg}"
        );
        let msg = held("m", "u32").validate().unwrap_err().to_string();
        assert!(
            msg.contains("has no member `n` to hold the vertex count"),
            "{msg}"
        );
    }

    /// `fill: sequence` writes each element's index in the array's scalar type (i32, u32, f32),
    /// whole or as a struct's last member, a runtime-sized one 2^20 of them; any other type is
    /// refused, naming the fill.
    #[test]
    fn a_sequence_fill_writes_each_elements_index() {
        let profile = "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\nbindings:\n  - { group: 0, binding: 5, fill: sequence }\n";
        let contract = profile_contract(profile);
        let held = |decl: &str, read: &str| {
            let src = format!("{decl}\n@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;\n@group(0) @binding(1) var<storage, read> ps: array<vec4<f32>>;\n@group(0) @binding(2) var<storage, read> js: array<vec4<u32>>;\n@group(0) @binding(3) var<storage, read> ws: array<vec4<f32>>;\n@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {{ let i = u32({read}); if (i >= arrayLength(&ps)) {{ return; }} out[i] = vec4<f32>((bones[js[i].x] * vec4<f32>(ps[i].xyz * ws[i].x, 1.0)).xyz, 0.0); }}\n");
            let s = Shader::held_to("test.wgsl".into(), src, contract.clone(), None);
            let result = s.validate();
            (s.contract.filled[0].bytes.clone(), result)
        };
        let words = |b: &[u8]| -> Vec<u32> { bytemuck::cast_slice(b).to_vec() };
        let (bytes, ok) = held(
            "@group(0) @binding(5) var<storage, read> table: array<i32>;",
            "table[g.x]",
        );
        ok.unwrap();
        assert_eq!(bytes.len(), 4 << 20);
        assert_eq!(&words(&bytes)[..4], &[0, 1, 2, 3]);
        assert_eq!(words(&bytes)[(1 << 20) - 1], (1 << 20) - 1);
        let (bytes, ok) = held("struct T { n: u32, pad: u32, at: array<f32> }\n@group(0) @binding(5) var<storage, read> table: T;", "table.at[g.x]");
        ok.unwrap();
        let floats: Vec<f32> = bytemuck::cast_slice(&bytes).to_vec();
        // The members before the array keep the zero fill.
        assert_eq!(floats[..5], [0.0, 0.0, 0.0, 1.0, 2.0]);
        let (_, refused) = held(
            "@group(0) @binding(5) var<storage, read> table: array<vec2<u32>>;",
            "table[g.x].x",
        );
        let msg = refused.unwrap_err().to_string();
        assert!(
            msg.contains("`fill: sequence` writes each element's index into an array of i32, u32 or f32, and `table` is array<vec2<u32>>")
                && msg.contains("field `bindings[0]`"),
            "{msg}"
        );
    }

    #[test]
    fn a_count_member_may_be_a_path_into_nested_structs() {
        let profile = |count: &str| {
            profile_contract(&format!("palette: {{ group: 0, binding: 0 }}\ncompute:\n  entry: main\n  positions: {{ group: 0, binding: 1 }}\n  joints: {{ group: 0, binding: 2 }}\n  weights: {{ group: 0, binding: 3 }}\n  skinned: {{ group: 0, binding: 4 }}\nbindings:\n  - {{ group: 0, binding: 5, count: {count} }}\n"))
        };
        let src = "struct R { start: u32, end: u32 }\nstruct P { scale: f32, range: R }\n@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;\n@group(0) @binding(1) var<storage, read> ps: array<vec4<f32>>;\n@group(0) @binding(2) var<storage, read> js: array<vec4<u32>>;\n@group(0) @binding(3) var<storage, read> ws: array<vec4<f32>>;\n@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;\n@group(0) @binding(5) var<storage, read> params: P;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x >= params.range.end - params.range.start) { return; } out[g.x] = vec4<f32>((bones[js[g.x].x] * vec4<f32>(ps[g.x].xyz * ws[g.x].x * params.scale, 1.0)).xyz, 0.0); }\n";
        let held =
            |count: &str| Shader::held_to("test.wgsl".into(), src.into(), profile(count), None);
        // `range` at byte 4 (after `scale`), `end` 4 bytes into it.
        let good = held("range.end");
        good.validate().unwrap();
        assert_eq!(
            good.contract.filled[0].count.as_ref().unwrap().offset,
            Some(8)
        );
        let msg = held("range.stop").validate().unwrap_err().to_string();
        assert!(
            msg.contains(
                "has no member `stop` to hold the vertex count: its members are start, end"
            ),
            "{msg}"
        );
        let msg = held("scale.end").validate().unwrap_err().to_string();
        assert!(
            msg.contains("`scale.end` names a member, and `scale` is f32, not a struct"),
            "{msg}"
        );
    }

    /// A member path through an array of structs reaches its element 0 (Filament's
    /// `objectUniforms.data[0].flagsChannels`, the drawn object's), at the array's offset.
    #[test]
    fn a_member_path_goes_through_an_array_to_its_element_0() {
        let src = "struct Obj { world: mat4x4<f32>, flags: u32 }\nstruct Objects { count: u32, data: array<Obj, 4> }\n@group(0) @binding(0) var<uniform> objects: Objects;\n";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let (_, var) = module.global_variables.iter().next().unwrap();
        // `data` at 16 (Obj aligns to 16), `flags` 64 into element 0.
        let m = filled_member(&module, var.ty, "data.flags", "").unwrap();
        // Arrays of arrays too: `grid[0][0].flags`.
        let nested = "struct Obj { world: mat4x4<f32>, flags: u32 }\nstruct Grid { count: u32, grid: array<array<Obj, 2>, 2> }\n@group(0) @binding(0) var<uniform> g: Grid;\n";
        let grid = naga::front::wgsl::parse_str(nested).unwrap();
        let (_, gv) = grid.global_variables.iter().next().unwrap();
        assert_eq!(
            filled_member(&grid, gv.ty, "grid.flags", "")
                .unwrap()
                .offset,
            80
        );
        assert_eq!(
            (m.offset, module.types.type_to_string(m.ty)),
            (80, "u32".into())
        );
        assert_eq!(
            int_offset(&module, var.ty, "data.flags", "a switch"),
            Ok(80)
        );
        let why = filled_member(&module, var.ty, "data.mask", "").unwrap_err();
        assert!(
            why.contains("has no member `mask`: its members are world, flags"),
            "{why}"
        );
    }

    /// Under a profile an input declared `read_write` is bound as declared; the shader contract
    /// of SPEC.md keeps its inputs read-only (`writable_input_breaks_contract`).
    #[test]
    fn a_profiles_input_may_be_declared_read_write() {
        let profile = "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  positions: { group: 0, binding: 1 }\n  joints: { group: 0, binding: 2 }\n  weights: { group: 0, binding: 3 }\n  skinned: { group: 0, binding: 4 }\n  count: { group: 0, binding: 5 }\n";
        let src = "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;\n@group(0) @binding(1) var<storage, read_write> ps: array<vec4<f32>>;\n@group(0) @binding(2) var<storage, read> js: array<vec4<u32>>;\n@group(0) @binding(3) var<storage, read> ws: array<vec4<f32>>;\n@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;\n@group(0) @binding(5) var<uniform> n: vec4<u32>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x >= n.x) { return; } out[g.x] = vec4<f32>((bones[js[g.x].x] * vec4<f32>(ps[g.x].xyz * ws[g.x].x, 1.0)).xyz, 0.0); }\n";
        let s = Shader::held_to(
            "test.wgsl".into(),
            src.into(),
            profile_contract(profile),
            None,
        );
        s.validate().unwrap();
        let writable = |role| {
            s.contract.slot(role).space == crate::contract::Space::Storage { writable: true }
        };
        assert!(writable(Role::Positions) && !writable(Role::Joints));
    }

    /// An output at the vertices' binding is skinned in place: one binding in the pipeline's
    /// layout, and each field over its source, or a message naming the one that is not.
    #[test]
    fn an_output_skinned_in_place_lies_over_its_sources() {
        let profile = |output: &str| {
            profile_contract(&format!("palette: {{ group: 0, binding: 0 }}\ncompute:\n  entry: main\n  vertices: {{ group: 0, binding: 1, stride: 20, position: 0, joints: {{ offset: 12, format: u8x4 }}, weights: {{ offset: 16, format: unorm8x4 }} }}\n  output: {{ group: 0, binding: 1, {output} }}\n  count: {{ group: 0, binding: 2 }}\n"))
        };
        let src = "@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;\n@group(0) @binding(1) var<storage, read_write> vs: array<u32>;\n@group(0) @binding(2) var<uniform> n: vec4<u32>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x >= n.x) { return; } let b = 5u * g.x; let p = vec3<f32>(bitcast<f32>(vs[b]), bitcast<f32>(vs[b + 1u]), bitcast<f32>(vs[b + 2u])); let q = (bones[vs[b + 3u] & 0xffu] * vec4<f32>(p, 1.0)).xyz; vs[b] = bitcast<u32>(q.x); vs[b + 1u] = bitcast<u32>(q.y); vs[b + 2u] = bitcast<u32>(q.z); }\n";
        let held =
            |output: &str| Shader::held_to("test.wgsl".into(), src.into(), profile(output), None);
        let good = held("stride: 20, position: 0");
        assert!(good.contract.in_place());
        let compute = good
            .contract
            .layout_entries(crate::contract::Pipeline::Compute, 0);
        assert_eq!(
            compute.iter().map(|e| e.binding).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        let msg = held("stride: 16, position: 4")
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("`compute.output` is skinned in place, at `compute.vertices`' binding, so its stride (16 bytes) must be the vertices' (20)")
                && msg.contains("`compute.output.position` is skinned in place, so it must be written over the vertices' position: it is at byte 4, the source position at byte 0"),
            "{msg}"
        );
    }

    #[test]
    fn fields_named_by_member_take_the_vertex_structs_offsets() {
        let profile = "palette: { group: 0, binding: 0 }\ncompute:\n  entry: main\n  vertices: { group: 0, binding: 1, position: pos, normal: nrm, joints: { offset: [j0, j1] }, weights: { offset: [w0, w1] } }\n  output: { group: 0, binding: 2, position: p }\n  count: { group: 0, binding: 3 }\ninfluence_sets: 2\n";
        let contract = profile_contract(profile);
        let src = "struct V { pos: vec3<f32>, j0: vec4<u32>, nrm: vec3<f32>, j1: vec4<u32>, w0: vec4<f32>, w1: vec4<f32> }\nstruct O { p: vec3<f32>, tint: vec4<f32> }\n@group(0) @binding(0) var<storage, read> bones: array<mat4x4<f32>>;\n@group(0) @binding(1) var<storage, read> vs: array<V>;\n@group(0) @binding(2) var<storage, read_write> out: array<O>;\n@group(0) @binding(3) var<uniform> n: vec4<u32>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { let v = vs[g.x]; out[g.x] = O((bones[v.j0.x] * vec4<f32>(v.pos, 1.0)).xyz * v.w0.x + v.nrm * f32(v.j1.x) * v.w1.x, vec4<f32>(1.0)); }\n";
        let s = Shader::held_to("test.wgsl".into(), src.into(), contract, None);
        s.validate().unwrap();
        let p = s.contract.pulled.as_ref().unwrap();
        assert_eq!(
            (p.stride, p.position, p.frames.normal),
            (96, Some(0), Some(32))
        );
        assert_eq!(
            (p.joints.clone(), p.weight_offsets.clone()),
            (vec![16, 48], vec![64, 80])
        );
        let o = s.contract.packed.as_ref().unwrap();
        assert_eq!(
            (o.stride, o.position, o.others.clone()),
            (32, 0, vec![(16, 16)])
        );
    }

    /// A storage palette of fixed length, bare or alone in a struct (a glTF viewer's
    /// `struct JointMatrices { matrices: array<mat4x4<f32>, 180> }`): its length bounds the cases.
    #[test]
    fn a_storage_palette_may_have_a_fixed_length() {
        let profile = "palette: { group: 1, binding: 0, form: storage }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 0, form: matrix }\n";
        let contract = profile_contract(profile);
        let held = |decl: &str, read: &str| {
            let src = format!("{decl}\n@group(0) @binding(0) var<uniform> vp: mat4x4<f32>;\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> {{ return vp * (w.x * {read}[j.x]) * vec4<f32>(p, 1.0); }}\n");
            Shader::held_to("test.wgsl".into(), src, contract.clone(), None)
        };
        for (decl, read) in [
            ("@group(1) @binding(0) var<storage, read> bones: array<mat4x4<f32>, 180>;", "bones"),
            ("struct J { matrices: array<mat4x4<f32>, 180> }\n@group(1) @binding(0) var<storage, read> joints: J;", "joints.matrices"),
        ] {
            let s = held(decl, read);
            s.validate().unwrap();
            assert_eq!(s.contract.palette_len, Some(180), "{decl}");
        }
        let msg = held(
            "@group(1) @binding(0) var<storage, read> bones: array<vec3<f32>, 180>;",
            "bones",
        )
        .validate()
        .unwrap_err()
        .to_string();
        assert!(
            msg.contains("binding 0 (`bones`) must be array<mat4x4<f32>>"),
            "{msg}"
        );
    }

    /// A palette of `mat4x3<f32>`, an affine's four columns (Ogre's `mat4x3` array, HLSL's
    /// `float4x3`), laid out as a mat4x4's: taken in storage and in a uniform, 64 bytes a joint;
    /// not where the profile says rows.
    #[test]
    fn a_palette_of_affine_columns_in_mat4x3s_is_taken() {
        let held = |profile: &str, decl: &str| {
            let contract = profile_contract(&format!("{profile}vertex:\n  entry: vs\n  position: {{ location: 0 }}\n  joints: {{ location: 1 }}\n  weights: {{ location: 2 }}\n  camera: {{ group: 0, binding: 0, form: matrix }}\n"));
            let src = format!("{decl}\n@group(0) @binding(0) var<uniform> vp: mat4x4<f32>;\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> {{ return vp * vec4<f32>((w.x * bones[j.x]) * vec4<f32>(p, 1.0), 1.0); }}\n");
            Shader::held_to("test.wgsl".into(), src, contract, None)
        };
        let storage = "palette: { group: 1, binding: 0, form: storage }\n";
        let s = held(
            storage,
            "@group(1) @binding(0) var<storage, read> bones: array<mat4x3<f32>>;",
        );
        s.validate().unwrap();
        assert_eq!(s.contract.palette_element.stride, 64);
        let uniform = "palette: { group: 1, binding: 0, form: uniform }\n";
        let s = held(
            uniform,
            "@group(1) @binding(0) var<uniform> bones: array<mat4x3<f32>, 24>;",
        );
        s.validate().unwrap();
        assert_eq!(s.contract.palette_len, Some(24));
        let rows = "palette: { group: 1, binding: 0, form: storage, matrix: rows }\n";
        let msg = held(
            rows,
            "@group(1) @binding(0) var<storage, read> bones: array<mat4x3<f32>>;",
        )
        .validate()
        .unwrap_err()
        .to_string();
        assert!(msg.contains("is array<mat4x3<f32>>"), "{msg}");
    }

    /// A fixed palette bounds the joints a case may have, less the matrices the harness puts
    /// before a base offset; a runtime-sized one bounds nothing.
    #[test]
    fn a_fixed_palette_bounds_the_joints_a_case_may_have() {
        let src = |palette: &str| {
            format!("@group(0) @binding(0) var<uniform> vp: mat4x4<f32>;\n@group(1) @binding(0) var<{palette};\n@group(1) @binding(1) var<uniform> base: vec4<u32>;\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> {{ return vp * (w.x * bones[j.x + base.x]) * vec4<f32>(p, 1.0); }}\n")
        };
        let uniform = src("uniform> bones: array<mat4x4<f32>, 16>");
        let profile = "palette: { group: 1, binding: 0, form: uniform }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 0, form: matrix }\n";
        let c = contract_of(&uniform, profile).unwrap().capacity().unwrap();
        assert_eq!(c.joints, 16);
        assert_eq!(
            c.fixed,
            "the shader's palette is a fixed array of 16 matrices"
        );
        let offset = profile.replace(
            "form: uniform }",
            "form: uniform, offset: { group: 1, binding: 1 } }",
        );
        let c = contract_of(&uniform, &offset).unwrap().capacity().unwrap();
        assert_eq!(c.joints, 16 - crate::contract::PALETTE_OFFSET);
        assert!(
            c.whence.contains("3 of them the other matrices"),
            "{}",
            c.whence
        );
        let storage = src("storage, read> bones: array<mat4x4<f32>>");
        let runtime = profile.replace("form: uniform", "form: storage");
        assert_eq!(contract_of(&storage, &runtime).unwrap().capacity(), None);
    }

    #[test]
    fn a_palette_may_be_a_member_of_per_instance_storage_structs() {
        let profile = "palette: { group: 1, binding: 0, member: joints, fill: identity }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 0, form: matrix }\n";
        let contract = profile_contract(profile);
        let held = |joints: &str| {
            let src = format!("struct I {{ world: mat4x4<f32>, tint: vec4<f32>, joints: {joints} }}\n@group(0) @binding(0) var<uniform> vp: mat4x4<f32>;\n@group(1) @binding(0) var<storage, read> instances: array<I>;\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>, @builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {{ return vp * (w.x * instances[i].joints[j.x]) * vec4<f32>(p, 1.0); }}\n");
            Shader::held_to("test.wgsl".into(), src, contract.clone(), None)
        };
        // A fixed-length palette in element 0: its length bounds the cases, the world matrix
        // before it is the identity.
        let s = held("array<mat4x4<f32>, 16>");
        s.validate().unwrap();
        let c = &s.contract;
        assert_eq!(c.palette_member.as_ref().unwrap().offset, 80);
        assert_eq!(c.palette_len, Some(16));
        let words: &[f32] = bytemuck::cast_slice(&c.palette_struct);
        assert_eq!(words.len(), (80 + 16 * 64) / 4);
        let ones: Vec<usize> = (0..words.len()).filter(|&i| words[i] == 1.0).collect();
        assert_eq!(ones[..4], [0, 5, 10, 15]);
        // A member of another type is named with what it must be.
        let msg = held("array<vec3<f32>, 16>")
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("member `joints` of binding 0 (`instances`) must be array<mat4x4<f32>>, is array<vec3<f32>, 16>"),
            "{msg}"
        );
        // Bare vec4 slots, four a joint: 16 slots hold 4 joints.
        let s = held("array<vec4<f32>, 16>");
        s.validate().unwrap();
        assert_eq!(s.contract.palette_len, Some(4));
    }

    /// vec4 slots in a block's member beside another (Urho3D's `cSkinMatrices` after `cModel`):
    /// a joint takes as many as the shader's reads step by, four rows here, not the three
    /// `matrix: rows` takes where no read says.
    #[test]
    fn slots_in_a_blocks_member_are_counted_from_the_reads() {
        let profile = "palette: { group: 0, binding: 0, form: uniform, member: rows, fill: identity, matrix: rows }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 0, form: matrix, member: projection }\n";
        let contract = profile_contract(profile);
        let src = |step: u32| {
            let lanes = |l: char| {
                (0..step)
                    .map(|r| format!("u.rows[v + {r}u].{l}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let (ty, xyz) = match step {
                4 => ("mat4x4<f32>", ".xyz"),
                _ => ("mat4x3<f32>", ""),
            };
            format!(
                "struct U {{ projection: mat4x4<f32>, rows: array<vec4<f32>, 48> }}\n@group(0) @binding(0) var<uniform> u: U;\nfn joint(j: u32) -> {ty} {{ let v = j * {step}u; return {ty}({}, {}, {}, {}); }}\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> {{ return u.projection * vec4<f32>(((joint(j.x) * w.x) * vec4<f32>(p, 1.0)){xyz}, 1.0); }}\n",
                lanes('x'),
                lanes('y'),
                lanes('z'),
                lanes('w'),
            )
        };
        for (step, joints) in [(4, 12), (3, 16)] {
            let s = Shader::held_to("test.wgsl".into(), src(step), contract.clone(), None);
            s.validate()
                .unwrap_or_else(|e| panic!("{e}\n{}", src(step)));
            let e = &s.contract.palette_element;
            assert_eq!((e.slots, e.stride), (step, 16 * step), "{}", src(step));
            assert_eq!(s.contract.palette_len, Some(joints));
        }
    }

    #[test]
    fn a_palette_and_a_camera_may_be_members_of_one_struct() {
        let profile = "palette: { group: 0, binding: 0, form: uniform, member: bones, fill: identity }\nvertex:\n  entry: vs\n  position: { location: 0 }\n  joints: { location: 1 }\n  weights: { location: 2 }\n  camera: { group: 0, binding: 0, form: matrix, member: projection }\n";
        let contract = profile_contract(profile);
        let held = |uniforms: &str| {
            // The shader indexes whichever array member it has.
            let bones = if uniforms.contains("bones") {
                "bones"
            } else {
                "joints"
            };
            let src = format!("struct U {{ {uniforms} }}\n@group(0) @binding(0) var<uniform> u: U;\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> {{ return u.projection * (w.x * u.{bones}[j.x]) * vec4<f32>(p, 1.0); }}\n");
            Shader::held_to("test.wgsl".into(), src, contract.clone(), None)
        };
        let s = held("model: mat4x4<f32>, projection: mat4x4<f32>, bones: array<mat4x4<f32>, 8>, cutoff: f32");
        s.validate().unwrap();
        let c = &s.contract;
        assert_eq!(c.palette_member.as_ref().unwrap().offset, 128);
        assert_eq!(c.camera_member.as_ref().unwrap().offset, 64);
        assert_eq!(c.palette_len, Some(8));
        // The model matrix the identity, the float after the bones 0 (not an identity's 1).
        let words: &[f32] = bytemuck::cast_slice(&c.palette_struct);
        assert_eq!(words.len(), (128 + 8 * 64 + 16) / 4);
        let ones: Vec<usize> = (0..words.len()).filter(|&i| words[i] == 1.0).collect();
        assert_eq!(ones[..4], [0, 5, 10, 15]);
        assert_eq!(words[(128 + 8 * 64) / 4], 0.0);
        let msg =
            held("model: mat4x4<f32>, projection: mat4x4<f32>, joints: array<mat4x4<f32>, 8>")
                .validate()
                .unwrap_err()
                .to_string();
        assert!(
            msg.contains("binding 0 (`u`) has no member `bones`: it is struct U { model: mat4x4<f32>, projection: mat4x4<f32>, joints: array<mat4x4<f32>, 8> }"),
            "{msg}"
        );
        let msg = held("projection: mat3x3<f32>, bones: array<mat4x4<f32>, 8>")
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(
                "member `projection` of binding 0 (`u`) must be mat4x4<f32>, is mat3x3<f32>"
            ),
            "{msg}"
        );
    }

    /// A camera one struct deeper (DiligentFX's `cbuffer cbCameraAttribs { CameraAttribs
    /// g_CameraAttribs; }`): its member a dotted path, placed at its offset from the binding's
    /// struct.
    #[test]
    fn a_camera_member_may_be_a_path_into_a_nested_struct() {
        let profile = |member: &str| {
            profile_contract(&format!("palette: {{ group: 0, binding: 1 }}\nvertex:\n  entry: vs\n  position: {{ location: 0 }}\n  joints: {{ location: 1 }}\n  weights: {{ location: 2 }}\n  camera: {{ group: 0, binding: 0, form: matrix, member: {member} }}\n"))
        };
        let src = "struct CameraAttribs { f4Position: vec4<f32>, mView: mat4x4<f32>, mViewProj: mat4x4<f32> }\nstruct Cb { pad: vec4<f32>, g_CameraAttribs: CameraAttribs }\n@group(0) @binding(0) var<uniform> cb: Cb;\n@group(0) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> { return cb.g_CameraAttribs.mViewProj * (w.x * bones[j.x]) * vec4<f32>(p, 1.0); }\n";
        let held =
            |member: &str| Shader::held_to("test.wgsl".into(), src.into(), profile(member), None);
        let s = held("g_CameraAttribs.mViewProj");
        s.validate().unwrap();
        // The struct at 16, the matrix 80 into it.
        assert_eq!(s.contract.camera_member.as_ref().unwrap().offset, 96);
        let msg = held("g_CameraAttribs.mView.x")
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("binding 0 (`cb`): `g_CameraAttribs.mView.x` names a member, and `g_CameraAttribs.mView` is mat4x4<f32>, not a struct"),
            "{msg}"
        );
        let msg = held("g_CameraAttribs.mViewProjection")
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("binding 0 (`cb`): struct CameraAttribs")
                && msg.contains(
                    "has no member `mViewProjection`: its members are f4Position, mView, mViewProj"
                ),
            "{msg}"
        );
        let msg = held("g_CameraAttribs.f4Position")
            .validate()
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("member `g_CameraAttribs.f4Position` of binding 0 (`cb`) must be mat4x4<f32>, is vec4<f32>"),
            "{msg}"
        );
    }

    #[test]
    fn a_palette_of_affine_rows_is_read_with_its_stride() {
        let profile = |extra: &str| {
            let text = format!("palette: {{ group: 0, binding: 1, matrix: rows{extra} }}\nvertex:\n  entry: vs\n  position: {{ location: 0 }}\n  joints: {{ location: 1 }}\n  weights: {{ location: 2 }}\n  camera: {{ group: 0, binding: 0, form: matrix }}\n");
            profile_contract(&text)
        };
        let vs = "@group(0) @binding(0) var<uniform> camera: mat4x4<f32>;\n@vertex fn vs(@location(0) p: vec3<f32>, @location(1) j: vec4<u32>, @location(2) w: vec4<f32>) -> @builtin(position) vec4<f32> { let m = MATRIX; return camera * vec4<f32>(dot(m[0], vec4<f32>(p, 1.0)), 0.0, 0.0, 1.0) * w.x; }\n";
        let held = |decl: &str, matrix: &str, contract| {
            let src = format!("{decl}\n{}", vs.replace("MATRIX", matrix));
            Shader::held_to("test.wgsl".into(), src, contract, None)
        };
        let bare = held(
            "@group(0) @binding(1) var<storage, read> bones: array<mat3x4<f32>>;",
            "bones[j.x]",
            profile(""),
        );
        bare.validate().unwrap();
        assert_eq!(bare.contract.palette_element.stride, 48);
        // The rows as three vec4 members (`r0`, `r1`, `r2`): byte for byte a mat3x4<f32>; not
        // with a fourth member after them.
        let rows = "mat3x4<f32>(bones[j.x].r0, bones[j.x].r1, bones[j.x].r2)";
        let split = held(
            "struct R { r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32> }\n@group(0) @binding(1) var<storage, read> bones: array<R>;",
            rows,
            profile(""),
        );
        split.validate().unwrap();
        assert_eq!(split.contract.palette_element.stride, 48);
        let more = held(
            "struct R { r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>, id: u32 }\n@group(0) @binding(1) var<storage, read> bones: array<R>;",
            rows,
            profile(""),
        );
        assert!(more.validate().is_err());
        let structs = held(
            "struct B { id: u32, rows: mat3x4<f32> }\n@group(0) @binding(1) var<storage, read> bones: array<B>;",
            "bones[j.x].rows",
            profile(", element_member: rows"),
        );
        structs.validate().unwrap();
        let e = &structs.contract.palette_element;
        assert_eq!((e.stride, e.member.as_ref().unwrap().offset), (64, 16));
        // Rows where the shader has a mat4x4: all four of them, 64 bytes a joint.
        let four = held(
            "@group(0) @binding(1) var<storage, read> bones: array<mat4x4<f32>>;",
            "transpose(bones[j.x])",
            profile(""),
        );
        four.validate().unwrap();
        let e = &four.contract.palette_element;
        assert_eq!((e.stride, e.four_rows), (64, true));
        // Rows where the shader has neither.
        let msg = held(
            "@group(0) @binding(1) var<storage, read> bones: array<mat4x3<f32>>;",
            "mat3x4<f32>(bones[j.x][0].xyzz, bones[j.x][1].xyzz, bones[j.x][2].xyzz)",
            profile(""),
        )
        .validate()
        .unwrap_err()
        .to_string();
        assert!(
            msg.contains(
                "binding 1 (`bones`) must be array<E>, E mat3x4<f32> or mat4x4<f32> (its four rows) (or 3 or 4 vec4<f32> a joint), is array<mat4x3<f32>>"
            ),
            "{msg}"
        );
    }

    #[test]
    fn member_values_are_written_as_their_types_hold_them() {
        let src = "struct M { world: mat3x4<f32>, tint: vec3<f32>, index: u32, bias: i32, scale: f32 }\n@group(0) @binding(0) var<storage, read> meshes: array<M>;";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let ty = module.global_variables.iter().next().unwrap().1.ty;
        let value = |name: &str, values: &[f64]| crate::contract::MemberValue {
            name: name.into(),
            values: values.to_vec(),
            origin: "p:1".into(),
        };
        let mut bytes = vec![0u8; 96];
        // world: 3 columns of vec4 (48 bytes), tint at 48, index at 60, bias at 64, scale at 68.
        for (name, values) in [
            (
                "world",
                &[
                    1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
                ][..],
            ),
            ("tint", &[0.5, 0.25, 2.0]),
            ("index", &[7.0]),
            ("bias", &[-3.0]),
            ("scale", &[1.5]),
        ] {
            write_member(&module, ty, &value(name, values), &mut bytes).unwrap();
        }
        let word = |at: usize| <[u8; 4]>::try_from(&bytes[at..at + 4]).unwrap();
        assert_eq!(f32::from_le_bytes(word(20)), 6.0);
        assert_eq!(f32::from_le_bytes(word(56)), 2.0);
        assert_eq!(u32::from_le_bytes(word(60)), 7);
        assert_eq!(i32::from_le_bytes(word(64)), -3);
        assert_eq!(f32::from_le_bytes(word(68)), 1.5);
        let mut err = |name: &str, values: &[f64]| {
            write_member(&module, ty, &value(name, values), &mut bytes).unwrap_err()
        };
        assert!(err("colour", &[1.0])
            .contains("has no member `colour`: its members are world, tint, index, bias, scale"));
        assert_eq!(
            err("tint", &[1.0]),
            "member `tint` is vec3<f32>: give 3 numbers, got 1"
        );
        assert_eq!(
            err("index", &[1.5]),
            "member `index` is u32: value 0 (1.5) does not fit its scalar type"
        );
        assert_eq!(
            err("index", &[-1.0]),
            "member `index` is u32: value 0 (-1) does not fit its scalar type"
        );
    }

    /// The builtin contract with one binding the harness fills at @group(1) @binding(0), as a
    /// profile's `bindings` gives it, over the default shader with `decl` added.
    fn with_filled(decl: &str, floats: &[f32]) -> Shader {
        let mut contract = Contract::builtin();
        contract.slots.push(crate::contract::Slot {
            role: Role::Filled(0),
            group: 1,
            binding: 0,
            space: crate::contract::Space::Uniform,
            ty: crate::contract::Want::Filled,
            holds: "a buffer the harness fills".into(),
            pipelines: vec![crate::contract::Pipeline::Render],
            origin: None,
        });
        contract.filled.push(crate::contract::Filled {
            role: Role::Filled(0),
            fill: crate::contract::Fill::Zero,
            floats: floats.to_vec(),
            members: Vec::new(),
            count: None,
            joints: None,
            texture_width: None,
            starts: Vec::new(),
            bytes: Vec::new(),
            problems: Vec::new(),
        });
        let src = default_source() + &format!("\n@group(1) @binding(0) {decl}\n");
        Shader::held_to("test.wgsl".into(), src, contract, None)
    }

    #[test]
    fn a_storage_texture_is_not_bound() {
        let s = with_filled("var tex: texture_storage_2d<rgba8unorm, write>;", &[]);
        let msg = s.validate().unwrap_err().to_string();
        assert!(
            msg.contains("binding 0 (`tex`) is a storage texture (the harness binds sampled textures and samplers)"),
            "{msg}"
        );
    }

    #[test]
    fn a_texture_is_bound_as_declared_with_its_texel() {
        let s = with_filled("var morph: texture_2d_array<f32>;", &[0.0, 1.0]);
        s.validate().unwrap();
        let slot = s.contract.slot(Role::Filled(0));
        assert_eq!(slot.space, crate::contract::Space::Texture);
        assert_eq!(slot.ty.wgsl(), "texture_2d_array<f32>");
        // Two f16 channels, then zeros.
        assert_eq!(s.contract.filled[0].bytes, [0, 0, 0, 0x3c, 0, 0, 0, 0]);
        let s = with_filled("var s: sampler;", &[1.0]);
        let msg = s.validate().unwrap_err().to_string();
        assert!(
            msg.contains("`s` is a sampler: `floats` give a texel's values"),
            "{msg}"
        );
    }

    #[test]
    fn missing_entry_point_breaks_contract() {
        let src = default_source().replace("fn fs_skin", "fn fs_other");
        let msg = shader(&src).validate().unwrap_err().to_string();
        assert!(msg.contains("`fs_skin` is missing"), "{msg}");
    }

    #[test]
    fn writable_input_breaks_contract() {
        let src = default_source().replace(
            "var<storage, read> weights",
            "var<storage, read_write> weights",
        );
        let msg = shader(&src).validate().unwrap_err().to_string();
        assert!(msg.contains("binding 3"), "{msg}");
    }
    /// The default shader with one edit, which must apply; its contract message.
    fn broken(from: &str, to: &str) -> String {
        let src = default_source();
        assert!(
            src.contains(from),
            "the default shader no longer contains `{from}`"
        );
        let err = shader(&src.replacen(from, to, 1)).validate().unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("test.wgsl: breaks the shader contract"),
            "{msg}"
        );
        msg
    }

    #[test]
    fn equivalent_layouts_are_accepted() {
        // Padding written as a vector, no trailing pad in the view, a vec4 position attribute:
        // the same bytes and the same attributes, so the contract holds.
        let src = default_source()
            .replacen(
                "    _pad0: u32,\n    _pad1: u32,\n    _pad2: u32,\n",
                "    _pad0: u32,\n    _pad: vec2<u32>,\n",
                1,
            )
            .replacen(
                "    half_width: f32,\n    _pad: f32,\n",
                "    half_width: f32,\n",
                1,
            )
            .replacen(
                "@location(0) position: vec3<f32>",
                "@location(0) position: vec4<f32>",
                1,
            )
            .replacen(
                "let p = skin(position, joint, weight);",
                "let p = skin(position.xyz, joint, weight);",
                1,
            );
        assert!(src.contains("_pad: vec2<u32>") && src.contains("position: vec4<f32>"));
        shader(&src).validate().unwrap();
        // Source positions as vec3: the same 16-byte stride, w unused (SPEC.md).
        let vec3 = default_source()
            .replacen(
                "positions: array<vec4<f32>>",
                "positions: array<vec3<f32>>",
                1,
            )
            .replacen("positions[i].xyz", "positions[i]", 1);
        assert!(vec3.contains("positions: array<vec3<f32>>") && !vec3.contains("positions[i].xyz"));
        shader(&vec3).validate().unwrap();
    }

    #[test]
    fn binding_types_are_checked() {
        for (from, to, want) in [
            (
                "array<mat4x4<f32>>",
                "array<mat3x3<f32>>",
                "binding 0 (`palette`) must be array<mat4x4<f32>>, is array<mat3x3<f32>>",
            ),
            (
                "positions: array<vec4<f32>>",
                "positions: array<vec4<f32>, 4>",
                "binding 1 (`positions`) must be array<vec4<f32>> (or array<vec3<f32>>), is array<vec4<f32>, 4>",
            ),
            (
                "joints: array<vec4<u32>>",
                "joints: array<vec4<i32>>",
                "binding 2 (`joints`) must be array<vec4<u32>> (or array<u32>, 4 an element), is array<vec4<i32>>",
            ),
            (
                "weights: array<vec4<f32>>",
                "weights: array<vec4<f32>, 4>",
                "binding 3 (`weights`) must be array<vec4<f32>> (or array<f32>, 4 an element), is array<vec4<f32>, 4>",
            ),
            (
                "skinned: array<vec4<f32>>",
                "skinned: array<vec4<f32>, 64>",
                "binding 4 (`skinned`) must be array<vec4<f32>>, is array<vec4<f32>, 64>",
            ),
            (
                "    count: u32,\n",
                "    count: f32,\n",
                "binding 5 (`params`) must be a u32 or i32 vertex count (alone, a vector's x, or a struct's first member), is struct Count { count: f32, _pad0: u32, _pad1: u32, _pad2: u32 } (16 bytes)",
            ),
            (
                "    offset_y: f32,\n",
                "    offset_y: u32,\n",
                "binding 6 (`view`) must be struct { scale: f32, offset_y: f32, half_width: f32, pad: f32 }, is struct View { scale: f32, offset_y: u32, half_width: f32, _pad: f32 } (16 bytes)",
            ),
            (
                "    _pad0: u32,\n    _pad1: u32,\n    _pad2: u32,\n",
                "    _pad: vec3<u32>,\n",
                "binding 5 (`params`) is struct Count { count: u32, _pad: vec3<u32> } (32 bytes); the contract's uniform is 16 bytes",
            ),
            (
                "    _pad: f32,\n",
                "    _pad: f32,\n    extra: vec4<f32>,\n",
                "binding 6 (`view`) is struct View { scale: f32, offset_y: f32, half_width: f32, _pad: f32, extra: vec4<f32> } (32 bytes); the contract's uniform is 16 bytes",
            ),
        ] {
            let msg = broken(from, to);
            assert!(msg.contains(want), "{msg}\nwanted: {want}");
        }
    }

    #[test]
    fn each_stage_uses_only_its_pipelines_bindings() {
        let msg = broken(
            "let p = skin(position, joint, weight);",
            "let p = skin(positions[0].xyz + position * 0.0, joint, weight);",
        );
        assert!(
            msg.contains("entry point `vs_skin` uses binding 1 (`positions`); the render pipeline has bindings 0 and 6"),
            "{msg}"
        );
        // The fragment stage may read the view: binding 6 is the render pipeline's.
        let src = default_source().replacen(
            "return vec4<f32>(",
            "let unused = view.scale;\n    return vec4<f32>(",
            1,
        );
        assert!(src.contains("let unused = view.scale;"));
        shader(&src).validate().unwrap();
    }

    #[test]
    fn address_spaces_and_missing_bindings() {
        let msg = broken("var<uniform> view", "var<storage, read> view");
        assert!(
            msg.contains("binding 6 (`view`) must be var<uniform>, is var<storage, read>"),
            "{msg}"
        );
        let msg = broken("@group(0) @binding(5)", "@group(0) @binding(7)");
        assert!(
            msg.contains("`params` uses binding 7; the contract has bindings 0 to 6"),
            "{msg}"
        );
        assert!(
            msg.contains("binding 5 (the vertex count) is missing"),
            "{msg}"
        );
        let msg = broken("@group(0) @binding(6)", "@group(1) @binding(6)");
        assert!(msg.contains("`view` is in group 1"), "{msg}");
    }

    #[test]
    fn vertex_inputs_are_checked() {
        let msg = broken(
            "@location(0) position: vec3<f32>",
            "@location(0) position: vec2<f32>",
        );
        assert!(
            msg.contains(
                "entry point `vs_skin`: input @location(0) must be vec3<f32> (or vec4<f32>), is vec2<f32>"
            ),
            "{msg}"
        );
        let msg = broken(
            "@location(1) joint: vec4<u32>",
            "@location(1) joint: vec4<f32>",
        );
        assert!(
            msg.contains(
                "entry point `vs_skin`: input @location(1) must be vec4<u32>, is vec4<f32>"
            ),
            "{msg}"
        );
        let msg = broken(
            "@location(2) weight: vec4<f32>",
            "@location(3) weight: vec4<f32>",
        );
        assert!(
            msg.contains(
                "entry point `vs_skin`: input @location(2) is missing (expected vec4<f32>)"
            ),
            "{msg}"
        );
    }

    #[test]
    fn fragment_output_and_stages_are_checked() {
        let msg = broken(
            "fn fs_skin(@location(0) tint: f32) -> @location(0) vec4<f32> {\n    return vec4<f32>(tint, 1.0 - tint, 0.5, 1.0);",
            "fn fs_skin(@location(0) tint: f32) -> @location(0) vec4<u32> {\n    return vec4<u32>(1u);",
        );
        assert!(
            msg.contains(
                "entry point `fs_skin` must return vec4<f32> at @location(0), returns vec4<u32>"
            ),
            "{msg}"
        );
        // Any workgroup size: the harness reads it and dispatches by it.
        let src = default_source().replacen(
            "@compute @workgroup_size(64)",
            "@compute @workgroup_size(32)",
            1,
        );
        let s = shader(&src);
        s.validate().unwrap();
        assert_eq!(s.contract.workgroup_size, [32, 1, 1]);
    }

    #[test]
    fn a_workgroup_size_from_overrides_takes_their_defaults() {
        let with = |decl: &str, size: &str| {
            let src = default_source().replacen(
                "@compute @workgroup_size(64)",
                &format!("{decl}\n@compute @workgroup_size({size})"),
                1,
            );
            shader(&src).validate()
        };
        // What a pipeline without constants gets: 64, 8 * 8, 64 x 1 x 1.
        assert!(with("override WG: u32 = 64u;", "WG").is_ok());
        assert!(with("override A: u32 = 8u;\noverride B = A * 8u;", "B").is_ok());
        assert!(with("override X: u32 = 64u;\noverride Y: u32 = 1u;", "X, Y").is_ok());
        assert!(with("override WG: u32 = 256u;", "WG").is_ok());
        let msg = with("override WG: u32;", "WG").unwrap_err().to_string();
        assert!(
            msg.starts_with("test.wgsl: breaks the shader contract")
                && msg.contains(
                    "entry point `skin_compute`: override `WG` has no default, and the profile's `constants` gives it no value"
                ),
            "{msg}"
        );
    }

    /// The default shader with a workgroup size from `decl`'s overrides, held to the built-in
    /// contract with `constants`.
    fn with_constants(decl: &str, size: &str, constants: &[(&str, f64)]) -> Shader {
        let src = default_source().replacen(
            "@compute @workgroup_size(64)",
            &format!("{decl}\n@compute @workgroup_size({size})"),
            1,
        );
        let mut contract = Contract::builtin();
        contract.constants = constants.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Shader::held_to("test.wgsl".into(), src, contract, None)
    }

    #[test]
    fn constants_give_overrides_their_values() {
        // By name, and by @id where the declaration has one; a bool from 1.
        let s = with_constants("override WG: u32;", "WG", &[("WG", 32.0)]);
        s.validate().unwrap();
        assert_eq!(s.contract.workgroup_size, [32, 1, 1]);
        let s = with_constants(
            "@id(3) override WG: u32 = 64u;\noverride ON: bool;",
            "select(1u, WG, ON)",
            &[("3", 16.0), ("ON", 1.0)],
        );
        s.validate().unwrap();
        assert_eq!(s.contract.workgroup_size, [16, 1, 1]);
    }

    #[test]
    fn a_constant_must_name_an_override_and_fit_its_type() {
        let err = |decl: &str, constants: &[(&str, f64)]| {
            let msg = with_constants(decl, "WG", constants)
                .validate()
                .unwrap_err();
            msg.to_string()
        };
        let msg = err("override WG: u32;", &[("WG", 32.0), ("wg", 1.0)]);
        assert!(
            msg.contains(
                "constant `wg` names no override of the shader; its overrides' keys: `WG`"
            ),
            "{msg}"
        );
        let msg = err("@id(7) override WG: u32;", &[("WG", 32.0)]);
        assert!(
            msg.contains(
                "the override `WG` has an @id, so WebGPU keys it by number: write `7` instead"
            ),
            "{msg}"
        );
        for (value, why) in [
            (
                -1.0,
                "-1 does not fit the override's type u32 (0 to 4294967295)",
            ),
            (4294967296.0, "does not fit the override's type u32"),
            (
                2.5,
                "2.5 is not a whole number, as the override's type u32 needs",
            ),
        ] {
            let msg = err("override WG: u32;", &[("WG", value)]);
            assert!(
                msg.contains(&format!("constant `WG`: {why}")) || msg.contains(why),
                "{msg}"
            );
        }
        let msg = err(
            "override WG: u32;\noverride S: f32;",
            &[("WG", 8.0), ("S", 1e39)],
        );
        assert!(msg.contains("constant `S`: 1000000000000000000000000000000000000000 does not fit the override's type f32"), "{msg}");
        // A zero workgroup size: naga's own reason, for the entry point.
        let msg = err("override WG: u32;", &[("WG", 0.0)]);
        assert!(
            msg.contains("entry point `skin_compute`: its overrides do not resolve with the profile's `constants`: workgroup_size override isn't strictly positive"),
            "{msg}"
        );
    }

    #[test]
    fn unreadable_and_empty_shaders_name_the_file() {
        let msg = Shader::load(Path::new("no/such/shader.wgsl"), None)
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("no/such/shader.wgsl: cannot read shader"),
            "{msg}"
        );
        // A GLSL file that is not UTF-8 is unreadable as a WGSL one is.
        let profile = include_str!("../../shaders/examples/vertex_glsl.profile.yaml");
        let at = Path::new("vertex_glsl.profile.yaml");
        let msg =
            Shader::with_profile_text(Path::new("vertex_glsl.vert"), vec![b'#', 0xff], at, profile)
                .err()
                .unwrap()
                .to_string();
        assert!(
            msg.starts_with("vertex_glsl.vert: cannot read shader: not UTF-8 text"),
            "{msg}"
        );
        let msg = shader("").validate().unwrap_err().to_string();
        assert!(
            msg.starts_with("test.wgsl: breaks the shader contract"),
            "{msg}"
        );
        assert!(
            msg.contains("entry point `skin_compute` is missing"),
            "{msg}"
        );
        let msg = shader("fn f( {").validate().unwrap_err().to_string();
        assert!(msg.contains("test.wgsl:1:"), "{msg}");
        // An error naga's lowering gives only a span it lost: the file is still named.
        let lost = "fn n() -> mat4x4<f32> { return vec3<f32>(1.0, 2.0, 3.0); }\nfn g() -> vec4<f32> { var m = n(); return vec4<f32>(m, 0.0); }\n";
        let msg = shader(lost).validate().unwrap_err().to_string();
        assert!(
            msg.starts_with("test.wgsl: invalid type for constructor component at index [0] (naga gives this error no line)"),
            "{msg}"
        );
    }

    /// The composed example: one WGSL text that validates against its profile, whose provenance
    /// is every module and define, and that changes with a define.
    #[test]
    fn a_shader_split_into_modules_is_composed() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let entry = root.join("shaders/examples/composed_skinning.wgsl");
        let s = Shader::load(&entry, None).unwrap_or_else(|e| panic!("{e}"));
        s.validate().unwrap_or_else(|e| panic!("{e}\n{}", s.source));
        assert!(!s.source.contains("#import"), "{}", s.source);
        let inputs = s.inputs.as_deref().unwrap();
        for part in [
            "== composed_skinning.wgsl",
            "== composed/blend.wgsl",
            "== composed/palette.wgsl",
            "== composed/camera.wgsl",
            "SKINNING = true",
            "INFLUENCES = 4",
        ] {
            assert!(inputs.contains(part), "{part}: {inputs}");
        }
        assert_eq!(s.provenance(), inputs);
        let plain = Shader::new("test.wgsl", default_source());
        assert_eq!(plain.provenance(), plain.source);
    }

    /// The three-influence example read as four joints beside three weights, the fourth one
    /// minus the others (as engines that keep `float3` weights do).
    fn implied_last_weight_source() -> String {
        include_str!("../../shaders/examples/vertex_three_influences.wgsl")
            .replace("joint_indices: vec3<i32>", "joint_indices: vec4<i32>")
            .replace(
                "for (var i = 0; i < MAX_WEIGHTS; i++) {",
                "let w = vec4<f32>(in.weights.xyz, 1.0 - in.weights.x - in.weights.y - in.weights.z);\n    for (var i = 0; i < 4; i++) {",
            )
            .replace("* in.weights[i]", "* w[i]")
    }

    /// `last_weight: implied` takes a vec3 of weights beside a vec4 of joints; left out, the
    /// weights' error names it beside `max_influences`; where the stage reads four weights, it
    /// is named to be left out.
    #[test]
    fn an_implied_last_weight_reads_one_weight_fewer() {
        let source = implied_last_weight_source();
        let profile = include_str!("../../shaders/examples/vertex_three_influences.profile.yaml")
            .replace("max_influences: 3", "last_weight: implied");
        let check = |source: &str, profile: &str| {
            let at = Path::new("vertex_three_influences.profile.yaml");
            let path = Path::new("vertex_three_influences.wgsl");
            Shader::with_profile_text(path, source, at, profile)
                .and_then(|s| s.validate().map(|_| ()))
                .map_err(|e| e.to_string())
        };
        check(&source, &profile).unwrap();
        let msg = check(&source, &profile.replace("last_weight: implied\n", "")).unwrap_err();
        assert!(
            msg.contains("input @location(4) must be vec4<f32>, is vec3<f32>")
                && msg.contains("`max_influences: 3` where it reads 3 joints too, or `last_weight: implied` where it reads 4"),
            "{msg}"
        );
        let four = source.replace("weights: vec3<f32>", "weights: vec4<f32>");
        let msg = check(&four, &profile).unwrap_err();
        assert!(
            msg.contains("input @location(4) must be vec3<f32>, is vec4<f32>")
                && msg.contains("leave out `last_weight: implied`"),
            "{msg}"
        );
    }

    /// Fewer influences read from vec4 attributes (Ogre's two-weight programs): each input keeps
    /// its 4 lanes, as the stage declares them; a vec2 beside them still must match.
    #[test]
    fn fewer_influences_may_be_read_from_vec4_attributes() {
        let source = include_str!("../../shaders/examples/vertex_three_influences.wgsl")
            .replace("joint_indices: vec3<i32>", "joint_indices: vec4<i32>")
            .replace("weights: vec3<f32>", "weights: vec4<f32>");
        let profile = include_str!("../../shaders/examples/vertex_three_influences.profile.yaml");
        let at = Path::new("vertex_three_influences.profile.yaml");
        let path = Path::new("vertex_three_influences.wgsl");
        let s = Shader::with_profile_text(path, source.clone(), at, profile).unwrap();
        s.validate().unwrap();
        let ty = |role: Role| {
            (s.contract.vertex_inputs.iter())
                .find(|v| v.role == role)
                .unwrap()
                .ty
        };
        assert_eq!(
            (ty(Role::Joints), ty(Role::Weights)),
            (Elem::Vec4I32, Elem::Vec4F32)
        );
        assert_eq!(s.contract.reads().most(), 3);
        let narrow = source.replace("weights: vec4<f32>", "weights: vec2<f32>");
        let msg = Shader::with_profile_text(path, narrow, at, profile)
            .and_then(|s| s.validate().map(|_| ()))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("input @location(4) must be vec3<f32>, is vec2<f32>"),
            "{msg}"
        );
    }

    /// A profile that says another number of influences than the stage's joints and weights
    /// take is told which `max_influences` reads them.
    #[test]
    fn influences_read_in_other_lanes_name_max_influences() {
        let source = include_str!("../../shaders/examples/vertex_three_influences.wgsl");
        let profile = include_str!("../../shaders/examples/vertex_three_influences.profile.yaml");
        let check = |profile: &str| {
            let at = Path::new("vertex_three_influences.profile.yaml");
            let path = Path::new("vertex_three_influences.wgsl");
            Shader::with_profile_text(path, source, at, profile)
                .and_then(|s| s.validate().map(|_| ()))
                .map_err(|e| e.to_string())
        };
        check(profile).unwrap();
        let msg = check(&profile.replace("max_influences: 3\n", "")).unwrap_err();
        assert!(
            msg.contains("input @location(3) must be vec4<i32>, is vec3<i32>")
                && msg.contains("says `max_influences: 3`"),
            "{msg}"
        );
        let msg = check(&profile.replace("max_influences: 3", "max_influences: 2")).unwrap_err();
        assert!(
            msg.contains("input @location(4) must be vec2<f32>, is vec3<f32>")
                && msg.contains("says `max_influences: 3`"),
            "{msg}"
        );
        // Two u32 joints read where the profile says 3: two joints, or four u16 ones.
        let pairs = source.replace("joint_indices: vec3<i32>", "joint_indices: vec2<u32>");
        let at = Path::new("vertex_three_influences.profile.yaml");
        let path = Path::new("vertex_three_influences.wgsl");
        let u16s = profile.replace("format: i32x4", "format: u16x4");
        let msg = Shader::with_profile_text(path, pairs, at, &u16s)
            .and_then(|s| s.validate().map(|_| ()))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("a vec2<u32> holds two joints where the shader reads 2 influences a vertex (`max_influences: 2`), or four u16 ones"),
            "{msg}"
        );
    }
}
