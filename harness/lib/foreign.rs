//! A shader shipped as GLSL or SPIR-V, read as wgpu reads it and written as the WGSL the harness tests.
//!
//! wgpu takes a team's shader as `ShaderSource::Glsl` (naga's GLSL front end, one stage a file)
//! or `ShaderSource::SpirV` (naga's SPIR-V front end, clip space as the module writes it); the
//! harness reads it with the same front ends and options, then works on the WGSL naga writes
//! from that module: what is validated, run, mutated and drafted. Diagnostics from reading name
//! the file the team wrote.

use std::collections::BTreeMap;
use std::path::Path;

use crate::compose::Define;

/// The language a shader file is in, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Wgsl,
    /// GLSL, one stage a file, the stage named by the file's extension.
    Glsl(naga::ShaderStage),
    /// A SPIR-V binary (from glslang, DXC, slangc, ...).
    SpirV,
}

impl Form {
    /// The form of the shader at `path`: `.spv` is SPIR-V; `.vert`, `.comp` and `.frag` (or
    /// `.vert.glsl`, `.vs.glsl` and so on) GLSL of that stage; anything else WGSL. A `.glsl` file
    /// that does not say its stage is an error saying how to name it, and a source wgpu takes in
    /// no form (`.hlsl`, `.slang`, a stage naga cannot read) one saying to compile it to SPIR-V.
    pub fn of(path: &Path) -> Result<Form, String> {
        let ext = |p: &Path| {
            p.extension()
                .map(|e| e.to_string_lossy().to_ascii_lowercase())
        };
        let stage = |e: &str| match e {
            "vert" | "vs" => Some(naga::ShaderStage::Vertex),
            "comp" | "cs" => Some(naga::ShaderStage::Compute),
            "frag" | "fs" => Some(naga::ShaderStage::Fragment),
            _ => None,
        };
        match ext(path).as_deref() {
            Some("spv") => Ok(Form::SpirV),
            Some(e @ ("vert" | "comp" | "frag")) => {
                Ok(Form::Glsl(stage(e).expect("a stage extension")))
            }
            // What wgpu takes in no form: compiled to SPIR-V first, as the engine does.
            Some(e @ ("hlsl" | "slang" | "spvasm" | "geom" | "tesc" | "tese" | "metal")) => {
                Err(format!(
                    "{}: wgpu takes no `.{e}` shader; compile it to SPIR-V (`.spv`: glslangValidator -V, dxc -spirv, slangc) and test that",
                    path.display()
                ))
            }
            Some("glsl") => {
                let inner = path.file_stem().map(Path::new).and_then(ext);
                inner.as_deref().and_then(stage).map(Form::Glsl).ok_or_else(|| {
                    format!(
                        "{}: a GLSL file's name says its stage, as naga reads one stage a file: `.vert`, `.comp` or `.frag` (or `.vert.glsl`, `.vs.glsl`, `.comp.glsl`, `.cs.glsl`, `.frag.glsl`, `.fs.glsl`)",
                        path.display()
                    )
                })
            }
            _ => Ok(Form::Wgsl),
        }
    }

    /// The language in words, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Form::Wgsl => "WGSL",
            Form::Glsl(_) => "GLSL",
            Form::SpirV => "SPIR-V",
        }
    }
}

/// A GLSL or SPIR-V shader as the harness tests it.
#[derive(Clone, Debug)]
pub struct Translated {
    /// The WGSL naga writes from the module.
    pub wgsl: String,
    /// What made it, for the goldens' provenance: the file's text (GLSL) or digest (SPIR-V),
    /// with the defines. A change in either changes this; naga's output alone does not.
    pub inputs: String,
}

/// Reads `bytes` (the file at `path`, in `form`, not WGSL) under `defines` (GLSL's `#define`s:
/// `false` leaves one undefined, `true` defines it as 1) and writes it as WGSL. The error is
/// naga's diagnostic, placed in the GLSL file where it has a place.
pub fn translate(
    path: &Path,
    bytes: &[u8],
    form: Form,
    defines: &BTreeMap<String, Define>,
) -> Result<Translated, String> {
    let shown = path.display().to_string();
    let (module, text, digest) = match form {
        Form::Wgsl => return Err(format!("{shown}: WGSL is read as it is, not translated")),
        Form::Glsl(stage) => {
            let text = String::from_utf8(bytes.to_vec())
                .map_err(|e| format!("{shown}: not UTF-8 text ({})", e.utf8_error()))?;
            let options = naga::front::glsl::Options {
                stage,
                defines: glsl_defines(defines),
            };
            let module = naga::front::glsl::Frontend::default()
                .parse(&options, &text)
                .map_err(|e| {
                    let placed = e.emit_to_string_with_path(&text, &shown);
                    let hint = glsl_refused(path, stage, defines);
                    format!("{}\n{hint}", placed.trim_end())
                })?;
            (module, Some(text), None)
        }
        Form::SpirV => {
            // As wgpu reads `ShaderSource::SpirV`: clip space as the module writes it.
            let options = naga::front::spv::Options {
                adjust_coordinate_space: false,
                strict_capabilities: true,
                block_ctx_dump_prefix: None,
            };
            // Either byte order, as `wgpu::util::make_spirv` takes a module: words swapped where
            // the magic number reads backwards.
            let swapped: Vec<u8>;
            let bytes = match bytes.get(..4) {
                Some([0x07, 0x23, 0x02, 0x03]) => {
                    swapped = (bytes.chunks(4))
                        .flat_map(|w| w.iter().rev().copied())
                        .collect();
                    &swapped[..]
                }
                _ => bytes,
            };
            let row_major = row_major_hint(bytes);
            let module = naga::front::spv::parse_u8_slice(bytes, &options)
                .map_err(|e| format!("{shown}: naga cannot read this SPIR-V: {e}{row_major}"))?;
            (module, None, Some((sha256(bytes), row_major)))
        }
    };
    let mut module = module;
    drop_point_size(&mut module);
    let info = crate::validator::strict().validate(&module).map_err(|e| {
        match (&text, form) {
            // A GLSL module naga's validator refuses (a `bool` in a push-constant block): as a
            // parse error, glslang's SPIR-V may still be read.
            (Some(t), Form::Glsl(stage)) => format!(
                "{}\n{}",
                crate::validator::emitted(&e, &module, (t, &shown)).trim_end(),
                glsl_refused(path, stage, defines)
            ),
            (Some(t), _) => crate::validator::emitted(&e, &module, (t, &shown)),
            // SPIR-V spans are no places in a text.
            (None, _) => {
                let hint = crate::validator::interface_hint(&e, &module)
                    .map_or(String::new(), |h| format!("\n{h}"));
                let row_major = digest.as_ref().map_or("", |d| &d.1);
                format!(
                    "{shown}: naga rejects the module it reads: {}{hint}{row_major}",
                    chain(&e.into_inner())
                )
            }
        }
    })?;
    let wgsl =
        naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
            .map_err(|e| format!("{shown}: naga cannot write it as WGSL: {e}"))?;
    // naga's WGSL writer keeps no member offsets: WGSL's own layout rules place them again, which
    // must be where the module has them, or the harness would test another layout than wgpu runs.
    let written = naga::front::wgsl::parse_str(&wgsl)
        .map_err(|e| format!("{shown}: naga cannot read back the WGSL it writes: {e}"))?;
    if let Some(why) = layout_moved(&module, &written) {
        return Err(format!(
            "{shown}: the {} lays out {why}; naga's WGSL, which the harness tests, places members by WGSL's rules (it keeps no explicit offsets or strides), so the layout under test would not be the one wgpu runs",
            form.name()
        ));
    }
    let name = path
        .file_name()
        .map_or(shown.clone(), |n| n.to_string_lossy().into_owned());
    let mut inputs = format!("== {name} ({})\n", form.name());
    match (text, digest) {
        (Some(t), _) => inputs.push_str(&t),
        (None, Some((d, _))) => inputs.push_str(&format!("sha256 {d}\n")),
        (None, None) => {}
    }
    if !defines.is_empty() {
        inputs.push_str("== defines\n");
        for (name, value) in defines {
            inputs.push_str(&format!("{name} = {value}\n"));
        }
    }
    Ok(Translated { wgsl, inputs })
}

/// Where a SPIR-V module keeps a non-square matrix row-major (HLSL's `float4x3` and
/// `float3x4`, which glslang and DXC write so; MonoGame's `Bones`), a line saying naga's
/// SPIR-V reader, and so wgpu, mis-types such a matrix (its loads keep the transposed shape),
/// which may be why it refuses the module, and what reads the same bytes instead; else nothing.
fn row_major_hint(bytes: &[u8]) -> String {
    let found = row_major_non_square(bytes);
    if found.is_empty() {
        return String::new();
    }
    format!(
        "\n(the module keeps {} row-major: naga's SPIR-V reader, which wgpu uses, mis-types a non-square row-major matrix (its loads keep the transposed shape), which may be why it refuses the module; declared as its transpose, the same bytes (`row_major float3x4` for HLSL's `float4x3`), and read through `transpose()`, it loads as written)",
        found.join(", ")
    )
}

/// The non-square matrices a SPIR-V module's structs keep row-major (`RowMajor` members, or
/// arrays of such matrices), each as `` `name` (a mat4x3: 4 columns of 3) ``.
fn row_major_non_square(bytes: &[u8]) -> Vec<String> {
    let words: Vec<u32> = (bytes.chunks_exact(4))
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut vectors = std::collections::HashMap::new();
    let mut matrices = std::collections::HashMap::new();
    let mut arrays = std::collections::HashMap::new();
    let mut structs = std::collections::HashMap::new();
    let mut names = std::collections::HashMap::new();
    let mut row_major = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let (count, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        let Some(ins) = words.get(at..at + count.max(1)) else {
            break;
        };
        match (op, ins) {
            // OpMemberName: a struct's member's name, a nul-terminated string.
            (6, [_, s, m, text @ ..]) => {
                let bytes: Vec<u8> = text.iter().flat_map(|w| w.to_le_bytes()).collect();
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                let name = String::from_utf8_lossy(&bytes[..end]).into_owned();
                names.insert((*s, *m), name);
            }
            // OpTypeVector, OpTypeMatrix, OpTypeArray, OpTypeStruct.
            (23, [_, id, _, n]) => {
                vectors.insert(*id, *n);
            }
            (24, [_, id, column, n]) => {
                matrices.insert(*id, (*column, *n));
            }
            (28, [_, id, element, _]) | (29, [_, id, element]) => {
                arrays.insert(*id, *element);
            }
            (30, [_, id, members @ ..]) => {
                structs.insert(*id, members.to_vec());
            }
            // OpMemberDecorate ... RowMajor.
            (72, [_, s, m, 4, ..]) => row_major.push((*s, *m)),
            _ => {}
        }
        at += count.max(1);
    }
    let mut out = Vec::new();
    for (s, m) in row_major {
        let Some(mut ty) = (structs.get(&s)).and_then(|ms| ms.get(m as usize)).copied() else {
            continue;
        };
        // Through arrays of arrays, as many as there are (a malformed module may loop).
        for _ in 0..=arrays.len() {
            match arrays.get(&ty) {
                Some(&element) => ty = element,
                None => break,
            }
        }
        let Some(&(column, columns)) = matrices.get(&ty) else {
            continue;
        };
        let Some(&rows) = vectors.get(&column) else {
            continue;
        };
        if rows != columns {
            let name = names
                .get(&(s, m))
                .map_or(format!("member {m}"), |n| format!("`{n}`"));
            out.push(format!(
                "{name} (a mat{columns}x{rows}: {columns} columns of {rows})"
            ));
        }
    }
    out.dedup();
    out
}

/// Whether struct member `m` is `gl_PointSize`.
fn point_size(m: &naga::StructMember) -> bool {
    matches!(
        m.binding,
        Some(naga::Binding::BuiltIn(naga::BuiltIn::PointSize))
    )
}

/// Removes the vertex stages' `gl_PointSize` output, which WGSL cannot write (WebGPU draws every
/// point one pixel wide) and which changes nothing the harness draws (triangles): the entry
/// point's result struct loses that member, and each value the entry point returns loses that
/// component; another struct holding it (naga's reading of SPIR-V keeps `gl_PerVertex` in a
/// private global) keeps the member, without its binding. A result struct used anywhere else,
/// or returned otherwise than composed, is left as it is (naga's WGSL writer then names it).
fn drop_point_size(module: &mut naga::Module) {
    use naga::{Expression, Statement, TypeInner};
    for i in 0..module.entry_points.len() {
        let ep = &module.entry_points[i];
        let Some(ty) = ep.function.result.as_ref().map(|r| r.ty) else {
            continue;
        };
        let TypeInner::Struct { members, span } = &module.types[ty].inner else {
            continue;
        };
        let Some(k) = members.iter().position(point_size) else {
            continue;
        };
        let mut returned = Vec::new();
        crate::naga_walk::for_each_statement(&ep.function.body, &mut |st| {
            if let Statement::Return { value } = st {
                returned.push(*value);
            }
        });
        let Some(mut composed) = returned
            .into_iter()
            .map(|e| e.filter(|&e| matches!(&ep.function.expressions[e], Expression::Compose { ty: t, .. } if *t == ty)))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        composed.sort();
        composed.dedup();
        let mut kept = members.clone();
        kept.remove(k);
        let new = naga::Type {
            name: module.types[ty].name.clone(),
            inner: TypeInner::Struct {
                members: kept,
                span: *span,
            },
        };
        if used_elsewhere(module, ty, &composed) || module.types.get(&new).is_some() {
            continue;
        }
        // In place: the handle stays, so the result and the composed values keep naming it.
        module.types.replace(ty, new);
        let f = &mut module.entry_points[i].function;
        for e in composed {
            if let Expression::Compose { components, .. } = &mut f.expressions[e] {
                components.remove(k);
            }
        }
    }
    let results: Vec<_> = (module.entry_points.iter())
        .filter_map(|ep| ep.function.result.as_ref().map(|r| r.ty))
        .collect();
    let marked: Vec<_> = (module.types.iter())
        .filter(|(h, t)| {
            !results.contains(h)
                && matches!(&t.inner, TypeInner::Struct { members, .. } if members.iter().any(point_size))
        })
        .map(|(h, _)| h)
        .collect();
    for ty in marked {
        let mut plain = module.types[ty].clone();
        if let TypeInner::Struct { members, .. } = &mut plain.inner {
            (members.iter_mut().filter(|m| point_size(m))).for_each(|m| m.binding = None);
        }
        if module.types.get(&plain).is_none() {
            module.types.replace(ty, plain);
        }
    }
}

/// Whether anything in the module but an entry point's result and the `composed` values it
/// returns names struct `ty`: a type holding it, a global, a function's argument, result or
/// local, another value composed or zeroed as one (a value of it could then be taken apart by
/// member index, which the removed member would shift).
fn used_elsewhere(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
    composed: &[naga::Handle<naga::Expression>],
) -> bool {
    use naga::{Expression, TypeInner};
    let holds = |t: &naga::Type| match &t.inner {
        TypeInner::Struct { members, .. } => members.iter().any(|m| m.ty == ty),
        TypeInner::Array { base, .. } | TypeInner::BindingArray { base, .. } => *base == ty,
        TypeInner::Pointer { base, .. } => *base == ty,
        _ => false,
    };
    let functions = (module.functions.iter().map(|(_, f)| (f, false)))
        .chain(module.entry_points.iter().map(|e| (&e.function, true)));
    module.types.iter().any(|(_, t)| holds(t))
        || module.global_variables.iter().any(|(_, g)| g.ty == ty)
        || functions.into_iter().any(|(f, entry)| {
            f.arguments.iter().any(|a| a.ty == ty)
                || (!entry && f.result.as_ref().is_some_and(|r| r.ty == ty))
                || f.local_variables.iter().any(|(_, l)| l.ty == ty)
                || f.expressions.iter().any(|(h, e)| match e {
                    Expression::Compose { ty: t, .. } => *t == ty && !composed.contains(&h),
                    Expression::ZeroValue(t) => *t == ty,
                    _ => false,
                })
        })
}

/// Whether GLSL `text` names `define` anywhere (an `#ifdef`, an `#if defined(...)`, a use the
/// preprocessor replaces): a define it never names is misspelt or another shader's.
pub fn mentions(text: &str, define: &str) -> bool {
    (text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))).any(|word| word == define)
}

/// The names GLSL `text`'s preprocessor conditions read (`#ifdef`, `#ifndef`, `#if` and `#elif`
/// expressions), less those the text `#define`s itself, in order of first use.
pub fn defines_read(text: &str) -> Vec<String> {
    let directives = (text.lines()).filter_map(|l| l.trim_start().strip_prefix('#'));
    let mut declared = Vec::new();
    let mut read: Vec<String> = Vec::new();
    for line in directives {
        let line = line.trim_start();
        let word = |s: &str| {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .count()
        };
        let (directive, rest) = line.split_at(word(line));
        let rest = rest.split("//").next().unwrap_or("");
        match directive {
            "define" => declared.extend(
                rest.split_whitespace()
                    .next()
                    .map(|n| n[..word(n)].to_string()),
            ),
            "ifdef" | "ifndef" | "if" | "elif" => {
                let names = rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
                for name in
                    names.filter(|n| n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
                {
                    if name != "defined" && !read.iter().any(|r| r == name) {
                        read.push(name.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    // Not the preprocessor's own (`GL_ES`, `__VERSION__`, `VULKAN`).
    read.retain(|name| {
        !declared.contains(name)
            && !name.starts_with("GL_")
            && !name.starts_with("__")
            && name != "VULKAN"
    });
    read
}

/// The first struct member, array stride or struct size a resource of `read` lays out otherwise
/// than `written` (the same module written as WGSL and read back): each global with a binding
/// (and the immediate data) paired with the written one at the same place, their types compared
/// member by member, array by array; where it is and where WGSL puts it.
fn layout_moved(read: &naga::Module, written: &naga::Module) -> Option<String> {
    let place = |v: &naga::GlobalVariable| match (&v.binding, v.space) {
        (Some(b), _) => Some((b.group, b.binding)),
        (None, naga::AddressSpace::Immediate) => Some((u32::MAX, u32::MAX)),
        _ => None,
    };
    for (_, v) in read.global_variables.iter() {
        let Some(at) = place(v) else {
            continue;
        };
        let theirs = (written.global_variables.iter()).find(|(_, w)| place(w) == Some(at));
        if let Some((_, w)) = theirs {
            // The block's type name where it has one (`Camera`), else the variable's.
            let name = (read.types[v.ty].name.clone())
                .or_else(|| v.name.clone())
                .unwrap_or_else(|| "?".into());
            if let Some(why) = moved((read, v.ty), (written, w.ty), &format!("`{name}`"), 0) {
                return Some(why);
            }
        }
    }
    None
}

/// Where type `a` of one module is laid out otherwise than `b` of the other, `what` naming the
/// place (`Skin`'s member `joints`).
fn moved(
    (ma, a): (&naga::Module, naga::Handle<naga::Type>),
    (mb, b): (&naga::Module, naga::Handle<naga::Type>),
    what: &str,
    depth: u8,
) -> Option<String> {
    use naga::TypeInner;
    if depth > 16 {
        return None;
    }
    match (&ma.types[a].inner, &mb.types[b].inner) {
        (
            TypeInner::Struct { members, span },
            TypeInner::Struct {
                members: theirs,
                span: their_span,
            },
        ) => {
            for (m, w) in members.iter().zip(theirs) {
                let member = format!("{what}'s member `{}`", m.name.as_deref().unwrap_or("?"));
                if m.offset != w.offset {
                    return Some(format!(
                        "{member} at byte {}, where WGSL places it at byte {}",
                        m.offset, w.offset
                    ));
                }
                if let Some(why) = moved((ma, m.ty), (mb, w.ty), &member, depth + 1) {
                    return Some(why);
                }
            }
            (span != their_span)
                .then(|| format!("{what} in {span} bytes, where WGSL makes it {their_span}"))
        }
        (
            TypeInner::Array { base, stride, .. },
            TypeInner::Array {
                base: their_base,
                stride: their_stride,
                ..
            },
        ) => match stride != their_stride {
            true => Some(format!(
                "{what} with a stride of {stride} bytes, where WGSL's is {their_stride}"
            )),
            false => moved((ma, *base), (mb, *their_base), what, depth + 1),
        },
        _ => None,
    }
}

/// What a GLSL file naga's front end refuses means, and what to test instead: wgpu's
/// `ShaderSource::Glsl` reads it with the same front end, so wgpu would refuse it too; but naga's
/// reader refuses some GLSL glslang takes (precision qualifiers on block or struct members,
/// `const in` parameters, an implicit-level `texture()` in a vertex stage), and an engine that
/// compiles its GLSL with glslang or shaderc ships SPIR-V, which the harness reads as wgpu reads
/// that: the command writes it under the same `defines`.
fn glsl_refused(
    path: &Path,
    stage: naga::ShaderStage,
    defines: &BTreeMap<String, Define>,
) -> String {
    // The stages a GLSL file's name gives; glslang takes another's from the name itself.
    let stage = match stage {
        naga::ShaderStage::Vertex => " -S vert",
        naga::ShaderStage::Fragment => " -S frag",
        naga::ShaderStage::Compute => " -S comp",
        _ => "",
    };
    let mut flags: Vec<String> = (glsl_defines(defines).into_iter())
        .map(|(name, value)| format!("-D{name}={value}"))
        .collect();
    flags.sort();
    let flags: String = flags.iter().map(|f| format!(" {f}")).collect();
    let spv = path.with_extension("spv");
    format!(
        "naga, which reads and validates wgpu's `ShaderSource::Glsl`, refuses this file: wgpu \
         would too. If glslang compiles it (naga refuses some GLSL glslang takes) and the engine \
         ships that SPIR-V, test the SPIR-V: `glslangValidator -V{stage}{flags} {} -o {}`, \
         then `SKINPROOF_SHADER={}` with its profile's `shader:` naming it and no `defines`",
        path.display(),
        spv.display(),
        spv.display()
    )
}

/// GLSL `#define`s from the profile's: `true` as 1, an integer as itself, `false` left out.
fn glsl_defines(defines: &BTreeMap<String, Define>) -> naga::FastHashMap<String, String> {
    (defines.iter())
        .filter_map(|(name, value)| match value {
            Define::Bool(false) => None,
            Define::Bool(true) => Some((name.clone(), "1".to_string())),
            Define::Int(i) => Some((name.clone(), i.to_string())),
        })
        .collect()
}

/// Hex SHA-256 of the SPIR-V words: a binary's provenance.
fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    (sha2::Sha256::digest(bytes).iter())
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An error with its sources, one after another.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(&format!(": {s}"));
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GLSL: &str = "#version 450
layout(set = 0, binding = 0) uniform Camera { mat4 view_proj; };
layout(set = 0, binding = 1) readonly buffer Bones { mat4 bones[]; };
layout(location = 0) in vec3 position;
layout(location = 1) in uvec4 joints;
layout(location = 2) in vec4 weights;
void main() {
    mat4 skin = weights.x * bones[joints.x] + weights.y * bones[joints.y]
              + weights.z * bones[joints.z] + weights.w * bones[joints.w];
#ifdef FLIP
    gl_Position = -(view_proj * skin * vec4(position, 1.0));
#else
    gl_Position = view_proj * skin * vec4(position, 1.0);
#endif
}
";

    /// The GLSL `text` at `path` (its stage by its name) written as WGSL, no define given.
    fn read_glsl(path: &Path, text: &str) -> Result<Translated, String> {
        translate(
            path,
            text.as_bytes(),
            Form::of(path).unwrap(),
            &BTreeMap::new(),
        )
    }

    #[test]
    fn the_form_is_the_file_name() {
        let of = |p: &str| Form::of(Path::new(p));
        assert_eq!(of("a/skin.wgsl"), Ok(Form::Wgsl));
        assert_eq!(of("skin"), Ok(Form::Wgsl));
        assert_eq!(of("skin.spv"), Ok(Form::SpirV));
        assert_eq!(of("skin.vert"), Ok(Form::Glsl(naga::ShaderStage::Vertex)));
        assert_eq!(of("skin.COMP"), Ok(Form::Glsl(naga::ShaderStage::Compute)));
        assert_eq!(
            of("skin.vs.glsl"),
            Ok(Form::Glsl(naga::ShaderStage::Vertex))
        );
        assert_eq!(
            of("skin.frag.glsl"),
            Ok(Form::Glsl(naga::ShaderStage::Fragment))
        );
        let e = of("shaders/skin.glsl").unwrap_err();
        assert!(
            e.starts_with("shaders/skin.glsl: ") && e.contains("`.vert`"),
            "{e}"
        );
        let e = of("skin.hlsl").unwrap_err();
        assert!(
            e.starts_with("skin.hlsl: wgpu takes no `.hlsl` shader; compile it to SPIR-V"),
            "{e}"
        );
    }

    #[test]
    fn glsl_is_written_as_wgsl_under_its_defines() {
        let path = Path::new("skin.vert");
        let form = Form::of(path).unwrap();
        let plain = translate(path, GLSL.as_bytes(), form, &BTreeMap::new()).unwrap();
        assert!(plain.wgsl.contains("@vertex"), "{}", plain.wgsl);
        assert!(plain.wgsl.contains("array<mat4x4<f32>>"), "{}", plain.wgsl);
        assert!(plain
            .inputs
            .starts_with("== skin.vert (GLSL)\n#version 450"));
        naga::front::wgsl::parse_str(&plain.wgsl).unwrap();
        let flip = BTreeMap::from([("FLIP".to_string(), Define::Bool(true))]);
        let flipped = translate(path, GLSL.as_bytes(), form, &flip).unwrap();
        assert_ne!(flipped.wgsl, plain.wgsl);
        assert!(flipped.inputs.ends_with("== defines\nFLIP = true\n"));
        // Defined false is not defined.
        let off = BTreeMap::from([("FLIP".to_string(), Define::Bool(false))]);
        assert_eq!(
            translate(path, GLSL.as_bytes(), form, &off).unwrap().wgsl,
            plain.wgsl
        );
    }

    /// `gl_PointSize`, which naga's WGSL writer refuses (WGSL has no point size), is dropped from
    /// a vertex stage's result (a glTF viewer's stage sets it for its points), in place; another
    /// struct that holds it (SPIR-V's `gl_PerVertex` in a private global) keeps the member
    /// unbound. Either left, naga refuses to write the WGSL.
    #[test]
    fn a_vertex_stages_point_size_is_dropped() {
        let text = GLSL.replace("gl_Position =", "gl_PointSize = 2.0;\n    gl_Position =");
        let options = naga::front::glsl::Options::from(naga::ShaderStage::Vertex);
        let mut module = naga::front::glsl::Frontend::default()
            .parse(&options, &text)
            .unwrap();
        let result = module.entry_points[0].function.result.as_ref().unwrap().ty;
        let members = |m: &naga::Module, ty| match &m.types[ty].inner {
            naga::TypeInner::Struct { members, .. } => members.clone(),
            _ => Vec::new(),
        };
        assert!(members(&module, result).iter().any(point_size));
        let writes = |m: &naga::Module| {
            let info = crate::validator::strict().validate(m).unwrap();
            naga::back::wgsl::write_string(m, &info, naga::back::wgsl::WriterFlags::empty())
        };
        assert!(writes(&module).is_err());
        // A private global of a struct that holds it too, as naga's reading of SPIR-V has.
        let per_vertex = naga::Type {
            name: Some("gl_PerVertex".into()),
            inner: naga::TypeInner::Struct {
                members: members(&module, result),
                span: 32,
            },
        };
        let held = module.types.insert(per_vertex, naga::Span::UNDEFINED);
        module.global_variables.append(
            naga::GlobalVariable {
                name: Some("per_vertex".into()),
                space: naga::AddressSpace::Private,
                binding: None,
                ty: held,
                init: None,
                memory_decorations: Default::default(),
            },
            naga::Span::UNDEFINED,
        );
        let before = module.types.len();
        drop_point_size(&mut module);
        assert_eq!(module.types.len(), before);
        assert!(!members(&module, result).iter().any(point_size));
        let kept = members(&module, held);
        assert!(
            kept.len() == 2 && kept.iter().all(|m| !point_size(m)),
            "{kept:?}"
        );
        let wgsl = writes(&module).unwrap();
        assert!(
            !wgsl.contains("point_size") && wgsl.contains("@builtin(position)"),
            "{wgsl}"
        );
        // Through `translate`, GLSL's stage loads.
        read_glsl(Path::new("skin.vert"), &text).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn the_defines_a_glsl_shader_reads() {
        let text = "#version 450\n#define LOCAL 2\n#ifdef GL_ES\n#endif\n#if __VERSION__ > 300\n#endif\n#ifdef SKINNED // on\n#if defined(NORMALS) && MAX_JOINTS > 64\n#elif LOCAL\n#endif\n#endif\n#ifndef SKINNED\n#endif\n";
        assert_eq!(defines_read(text), ["SKINNED", "NORMALS", "MAX_JOINTS"]);
        assert!(defines_read(GLSL).contains(&"FLIP".to_string()));
        assert!(mentions(GLSL, "FLIP") && !mentions(GLSL, "FLI"));
    }

    /// The row-major non-square matrices of a module's structs, read from its words (assembled
    /// here by hand: each instruction its word count and opcode, then its operands): an array of
    /// `mat4x3` (4 columns of vec3) kept `RowMajor` is named; a square one so kept, and a
    /// non-square one not so kept, are not.
    #[test]
    fn row_major_non_square_matrices_are_found_in_the_words() {
        let op = |code: u32, operands: &[u32]| {
            let mut w = vec![((operands.len() as u32 + 1) << 16) | code];
            w.extend_from_slice(operands);
            w
        };
        let name = u32::from_le_bytes(*b"Bone");
        // Member 0 an array of mat4x3 decorated `layout` (RowMajor 4, ColMajor 5), member 1 a
        // mat4x4 and member 2 a mat4x3, row-major and column-major.
        let module = |layout: u32| -> Vec<u8> {
            let words: Vec<u32> = [
                vec![0x0723_0203, 0x0001_0000, 0, 100, 0],
                op(6, &[10, 0, name, u32::from_le_bytes(*b"s\0\0\0")]),
                op(22, &[2, 32]),
                op(23, &[3, 2, 3]),
                op(23, &[4, 2, 4]),
                op(24, &[5, 3, 4]),
                op(24, &[6, 4, 4]),
                op(28, &[7, 5, 99]),
                op(30, &[10, 7, 6, 5]),
                op(72, &[10, 0, layout]),
                op(72, &[10, 1, 4]),
                op(72, &[10, 2, 5]),
            ]
            .concat();
            words.iter().flat_map(|w| w.to_le_bytes()).collect()
        };
        assert_eq!(
            row_major_non_square(&module(4)),
            ["`Bones` (a mat4x3: 4 columns of 3)"]
        );
        assert!(row_major_hint(&module(4)).contains(
            "naga's SPIR-V reader, which wgpu uses, mis-types a non-square row-major matrix"
        ));
        assert!(row_major_non_square(&module(5)).is_empty());
        assert_eq!(row_major_hint(&module(5)), "");
        // An array of itself (malformed): no matrix, and an end.
        let words: Vec<u32> = [
            vec![0x0723_0203, 0x0001_0000, 0, 100, 0],
            op(28, &[7, 7, 99]),
            op(30, &[10, 7]),
            op(72, &[10, 0, 4]),
        ]
        .concat();
        let cycle: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert!(row_major_non_square(&cycle).is_empty());
    }

    #[test]
    fn a_glsl_error_is_placed_in_the_glsl_file() {
        let broken = GLSL.replace("mat4 skin =", "mat4 skin = nope +");
        let path = Path::new("shaders/skin.vert");
        let e = read_glsl(path, &broken).unwrap_err();
        assert!(e.contains("shaders/skin.vert:8:"), "{e}");
        assert!(e.contains("nope"), "{e}");
        // GLSL glslang takes and naga's front end refuses (a precision qualifier on a block
        // member): placed, and the SPIR-V the engine ships named as what to test.
        let precise = GLSL.replace("{ mat4 view_proj; }", "{ highp mat4 view_proj; }");
        let e = read_glsl(Path::new("shaders/skin.vert"), &precise).unwrap_err();
        assert!(e.contains("shaders/skin.vert:2:"), "{e}");
        assert!(
            e.contains("`glslangValidator -V -S vert shaders/skin.vert -o shaders/skin.spv`, then `SKINPROOF_SHADER=shaders/skin.spv`"),
            "{e}"
        );
        // Under the profile's defines: the command compiles the same variant.
        let defines = BTreeMap::from([
            ("FLIP".to_string(), Define::Bool(true)),
            ("JOINTS".to_string(), Define::Int(64)),
            ("OFF".to_string(), Define::Bool(false)),
        ]);
        let path = Path::new("skin.vert");
        let e = translate(path, precise.as_bytes(), Form::of(path).unwrap(), &defines).unwrap_err();
        assert!(
            e.contains("`glslangValidator -V -S vert -DFLIP=1 -DJOINTS=64 skin.vert -o skin.spv`"),
            "{e}"
        );
    }

    /// GLSL naga reads and its validator refuses (a `bool` in a push-constant block, which
    /// glslang's SPIR-V makes a u32): placed, with the SPIR-V named as what to test.
    #[test]
    fn glsl_naga_validates_no_further_names_the_spirv_too() {
        let glsl = GLSL.replace(
            "uniform Camera { mat4 view_proj; };",
            "uniform Camera { mat4 view_proj; };\nlayout(push_constant) uniform Params { bool flip; } params;",
        );
        let used = glsl.replace(
            "gl_Position = ",
            "gl_Position = (params.flip ? -1.0 : 1.0) * ",
        );
        assert_ne!(used, glsl);
        let e = read_glsl(Path::new("shaders/skin.vert"), &used).unwrap_err();
        assert!(
            e.contains("`glslangValidator -V -S vert shaders/skin.vert -o shaders/skin.spv`"),
            "{e}"
        );
    }

    #[test]
    fn a_layout_wgsl_would_move_is_refused() {
        // std140 strides an array of floats 16 bytes apart; WGSL's array<f32, 4> strides them 4.
        let glsl = GLSL.replace(
            "uniform Camera { mat4 view_proj; };",
            "uniform Camera { mat4 view_proj; float fade[4]; };",
        );
        let path = Path::new("skin.vert");
        let e = read_glsl(path, &glsl).unwrap_err();
        assert!(
            e.starts_with("skin.vert: the GLSL lays out `Camera`'s member `fade` with a stride of 16 bytes, where WGSL's is 4;"),
            "{e}"
        );
        // A struct declared before it is used in a std430 buffer: naga keeps a std140 copy of it
        // that no global uses, which is not compared.
        let std430 = GLSL
            .replace(
                "readonly buffer Bones { mat4 bones[]; };",
                "readonly buffer Bones { mat4 bones[]; };\nstruct Skin { uint joints[4]; float weights[4]; };\nlayout(std430, set = 0, binding = 2) readonly buffer Skins { Skin skins[]; };",
            )
            .replace("weights.x * bones", "weights.x * float(skins[0].joints[1]) * bones");
        let read = read_glsl(path, &std430);
        assert!(read.is_ok(), "{read:?}");
    }

    #[test]
    fn spirv_is_read_as_wgpu_reads_it() {
        // The smallest module glslang would write is long; naga's own SPIR-V writer gives one.
        let module = naga::front::wgsl::parse_str(
            "@vertex fn main(@location(0) p: vec4<f32>) -> @builtin(position) vec4<f32> { return p; }",
        )
        .unwrap();
        let info = crate::validator::strict().validate(&module).unwrap();
        // Written in WebGPU's clip space (no y flip), so that a reader adjusting it would show.
        let mut options = naga::back::spv::Options::default();
        options.flags -= naga::back::spv::WriterFlags::ADJUST_COORDINATE_SPACE;
        let words = naga::back::spv::write_vec(&module, &info, &options, None).unwrap();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let path = Path::new("skin.spv");
        let read = translate(path, &bytes, Form::SpirV, &BTreeMap::new()).unwrap();
        assert!(read.wgsl.contains("@vertex"), "{}", read.wgsl);
        // Clip space kept: no negated y.
        assert!(!read.wgsl.contains("-("), "{}", read.wgsl);
        assert_eq!(
            read.inputs,
            format!("== skin.spv (SPIR-V)\nsha256 {}\n", sha256(&bytes))
        );
        // Big-endian words read as wgpu reads them.
        let big: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        let read_big = translate(path, &big, Form::SpirV, &BTreeMap::new()).unwrap();
        assert_eq!(read_big.wgsl, read.wgsl);
        let e = translate(
            path,
            &bytes[..bytes.len() / 2],
            Form::SpirV,
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert!(
            e.starts_with("skin.spv: naga cannot read this SPIR-V: "),
            "{e}"
        );
    }
}
