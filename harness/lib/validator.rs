//! The one naga validator every reading of a shader goes through, so that the harness accepts
//! exactly what it builds pipelines from, and the place of an error naga gives none.

/// What a shader is validated under: naga's defaults, the core WGSL builtins wgpu gates behind a
/// downlevel flag (`pack2x16float` and `unpack2x16float`, `SHADER_F16_IN_F32`: engines pack
/// half-float normals with them), and immediate data (`var<immediate>`, native engines' push
/// constants, wgpu's `IMMEDIATES` feature); an adapter without them then refuses the shader in
/// its own trials.
pub const CAPABILITIES: naga::valid::Capabilities = naga::valid::Capabilities::MULTISAMPLED_SHADING
    .union(naga::valid::Capabilities::CUBE_ARRAY_TEXTURES)
    .union(naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32)
    .union(naga::valid::Capabilities::IMMEDIATES);

/// A validator of every rule under [`CAPABILITIES`].
pub fn strict() -> naga::valid::Validator {
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), CAPABILITIES)
}

/// `e` with the place of what it names where naga gives it none (an entry point's interface, a
/// type's layout): the declaration of the entry point, function, global variable, type, constant
/// or override, by the spans `module` keeps or, for an entry point, by its `fn` in `source`.
/// Where none is found, `e` as it was.
pub fn placed(
    e: &naga::WithSpan<naga::valid::ValidationError>,
    module: Option<&naga::Module>,
    source: &str,
) -> naga::WithSpan<naga::valid::ValidationError> {
    use naga::valid::ValidationError as V;
    if e.spans().len() > 0 {
        return e.clone();
    }
    let span = match (e.as_inner(), module) {
        (V::EntryPoint { name, .. }, _) => function_span(source, name),
        (V::Function { handle, .. }, Some(m)) => m.functions.get_span(*handle),
        (V::GlobalVariable { handle, .. }, Some(m)) => m.global_variables.get_span(*handle),
        (V::Type { handle, .. }, Some(m)) => type_span(m, *handle),
        (V::Constant { handle, .. }, Some(m)) => m.constants.get_span(*handle),
        (V::Override { handle, .. }, Some(m)) => m.overrides.get_span(*handle),
        _ => naga::Span::default(),
    };
    if span.is_defined() {
        e.clone().with_span(span, "declared here")
    } else {
        e.clone()
    }
}

/// `e` as naga writes it for `source` at `path`: the path first where naga gives it no place (and
/// so prints none), and after it what to change where [`interface_hint`] has it.
pub fn emitted(
    e: &naga::WithSpan<naga::valid::ValidationError>,
    module: &naga::Module,
    (source, path): (&str, &str),
) -> String {
    let text = e.emit_to_string_with_path(source, path);
    let text = match e.spans().len() {
        0 => format!("{path}: {}", text.trim_end()),
        _ => text.trim_end().to_string(),
    };
    match interface_hint(e, module) {
        Some(hint) => format!("{text}\n{hint}"),
        None => text,
    }
}

/// What to change where naga refuses an entry point for a value between stages that is no
/// scalar or vector (GLSL's `out mat3 tbn`, which takes three locations there): the values, and
/// the split into vectors that WGSL, and so wgpu, takes instead.
pub fn interface_hint(
    e: &naga::WithSpan<naga::valid::ValidationError>,
    module: &naga::Module,
) -> Option<String> {
    use naga::common::wgsl::TypeContext;
    let naga::valid::ValidationError::EntryPoint {
        name,
        stage,
        source,
    } = e.as_inner()
    else {
        return None;
    };
    let ep = (module.entry_points.iter()).find(|ep| ep.name == *name && ep.stage == *stage)?;
    if matches!(
        source,
        naga::valid::EntryPointError::ForbiddenStageOperations
    ) {
        return implicit_level_hint(module, ep);
    }
    let located = |binding: &Option<naga::Binding>, ty, what: String| match binding {
        Some(naga::Binding::Location { location, .. }) => Some((what, *location, ty)),
        _ => None,
    };
    let mut values = Vec::new();
    for arg in &ep.function.arguments {
        let what = format!("input `{}`", arg.name.as_deref().unwrap_or("?"));
        values.extend(located(&arg.binding, arg.ty, what));
        values.extend(members(module, arg.ty, "input"));
    }
    if let Some(result) = &ep.function.result {
        values.extend(located(&result.binding, result.ty, "output".into()));
        values.extend(members(module, result.ty, "output"));
    }
    let odd: Vec<String> = (values.into_iter())
        .filter(|(_, _, ty)| {
            !matches!(
                module.types[*ty].inner,
                naga::TypeInner::Scalar(_) | naga::TypeInner::Vector { .. }
            )
        })
        .map(|(what, location, ty)| {
            let split = match module.types[ty].inner {
                naga::TypeInner::Matrix { columns, rows, .. } => format!(
                    ": split it into {} vec{} values at locations {location} to {} (one a column, as GLSL places a matrix's)",
                    columns as u8,
                    rows as u8,
                    location + columns as u32 - 1
                ),
                _ => String::new(),
            };
            format!(
                "the {what} at @location({location}) is `{}`{split}",
                module.types.type_to_string(ty)
            )
        })
        .collect();
    (!odd.is_empty()).then(|| {
        format!(
            "(values between stages are scalars or vectors in WGSL, and so in wgpu: {})",
            odd.join("; ")
        )
    })
}

/// What to change where naga forbids an operation in a stage other than a fragment stage and the
/// module samples a texture at an implicit level of detail (GLSL's `texture()` in a vertex stage,
/// with which WebGL engines read their bone texture): the base level, which GLSL reads there.
fn implicit_level_hint(module: &naga::Module, ep: &naga::EntryPoint) -> Option<String> {
    let implicit = |f: &naga::Function| {
        f.expressions.iter().any(|(_, e)| {
            matches!(e, naga::Expression::ImageSample { level, .. }
                if matches!(level, naga::SampleLevel::Auto | naga::SampleLevel::Bias(_)))
        })
    };
    // The entry point and the functions it calls, directly or not.
    let fragment = ep.stage == naga::ShaderStage::Fragment;
    (!fragment && crate::naga_walk::reachable(module, &[ep]).any(implicit)).then(|| {
        "(the stage samples a texture at an implicit level of detail (`textureSample`, GLSL's `texture()`, WebGL's `texture2D`), which only a fragment stage may: WGSL, and so wgpu, refuses it here, from GLSL or SPIR-V alike; outside a fragment stage GLSL reads the base level, which `textureSampleLevel(.., 0.0)` (GLSL's `textureLod(.., 0.0)`) reads in every stage)".to_string()
    })
}

/// The located members of an entry point's struct argument or result, named as `what`.
fn members(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
    what: &str,
) -> Vec<(String, u32, naga::Handle<naga::Type>)> {
    let naga::TypeInner::Struct { members, .. } = &module.types[ty].inner else {
        return Vec::new();
    };
    (members.iter())
        .filter_map(|m| match m.binding {
            Some(naga::Binding::Location { location, .. }) => Some((
                format!("{what} `{}`", m.name.as_deref().unwrap_or("?")),
                location,
                m.ty,
            )),
            _ => None,
        })
        .collect()
}

/// Where the type `ty` is declared, or, for one written inline (`array<T, 4>`), the first global
/// variable or struct that holds it.
fn type_span(module: &naga::Module, ty: naga::Handle<naga::Type>) -> naga::Span {
    let own = module.types.get_span(ty);
    if own.is_defined() {
        return own;
    }
    let global = (module.global_variables.iter())
        .find(|(_, g)| g.ty == ty)
        .map(|(h, _)| module.global_variables.get_span(h));
    let holder = (module.types.iter())
        .find(|(_, t)| match &t.inner {
            naga::TypeInner::Struct { members, .. } => members.iter().any(|m| m.ty == ty),
            naga::TypeInner::Array { base, .. } | naga::TypeInner::BindingArray { base, .. } => {
                *base == ty
            }
            _ => false,
        })
        .map(|(h, _)| type_span(module, h));
    global
        .filter(|s| s.is_defined())
        .or(holder)
        .unwrap_or_default()
}

/// The span of `fn name` in `source` (outside line comments; a block comment or, in an entry
/// module, an inactive `#ifdef` branch may hold an earlier match), or an undefined span.
fn function_span(source: &str, name: &str) -> naga::Span {
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let code = line.split("//").next().unwrap_or("");
        let mut from = 0;
        while let Some(i) = code[from..].find("fn") {
            let start = from + i;
            from = start + 2;
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &code[start + 2..];
            let name_at = rest.len() - rest.trim_start().len();
            let Some(follows) = rest[name_at..].strip_prefix(name) else {
                continue;
            };
            if name_at > 0 && follows.trim_start().starts_with('(') {
                let end = start + 2 + name_at + name.len();
                return naga::Span::new((at + start) as u32, (at + end) as u32);
            }
        }
        at += line.len();
    }
    naga::Span::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GLSL's matrix between stages, which naga refuses: the hint names it and its split.
    #[test]
    fn a_matrix_between_stages_is_named_with_its_split() {
        let source = "#version 450\nlayout(location = 0) in vec3 pos;\nlayout(location = 2) out mat3 tbn;\nvoid main() {\n    tbn = mat3(1.0);\n    gl_Position = vec4(pos, 1.0);\n}\n";
        let options = naga::front::glsl::Options::from(naga::ShaderStage::Vertex);
        let module = naga::front::glsl::Frontend::default()
            .parse(&options, source)
            .unwrap();
        let e = strict().validate(&module).unwrap_err();
        let hint = interface_hint(&e, &module).expect("a hint");
        assert_eq!(
            hint,
            "(values between stages are scalars or vectors in WGSL, and so in wgpu: the output `tbn` at @location(2) is `mat3x3<f32>`: split it into 3 vec3 values at locations 2 to 4 (one a column, as GLSL places a matrix's))"
        );
    }

    /// An implicit-level `texture()` in a vertex stage, which naga forbids there: the hint says
    /// so and names the base level, and no split of the stage's matrix output (another error,
    /// naga's next).
    #[test]
    fn an_implicit_level_sample_in_a_vertex_stage_is_named() {
        let source = "#version 450\nlayout(set = 0, binding = 0) uniform texture2D bones;\nlayout(set = 0, binding = 1) uniform sampler s;\nlayout(location = 0) in vec3 pos;\nlayout(location = 2) out mat3 tbn;\nvoid main() {\n    tbn = mat3(1.0);\n    gl_Position = vec4(pos, 1.0) + texture(sampler2D(bones, s), vec2(0.5));\n}\n";
        let options = naga::front::glsl::Options::from(naga::ShaderStage::Vertex);
        let parse = |source: &str| naga::front::glsl::Frontend::default().parse(&options, source);
        let module = parse(source).unwrap();
        let e = strict().validate(&module).unwrap_err();
        let hint = interface_hint(&e, &module).expect("a hint");
        assert!(
            hint.starts_with("(the stage samples a texture at an implicit level of detail")
                && hint.contains("`textureSampleLevel(.., 0.0)`"),
            "{hint}"
        );
        // A derivative in the vertex stage, the implicit sample in another stage's function: no
        // word of a sample.
        let derivative = "@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(dpdx(1.0)); }\n@group(0) @binding(0) var t: texture_2d<f32>;\n@group(0) @binding(1) var s: sampler;\n@fragment fn fs() -> @location(0) vec4<f32> { return textureSample(t, s, vec2<f32>(0.5)); }\n";
        let module = naga::front::wgsl::parse_str(derivative).unwrap();
        let e = strict().validate(&module).unwrap_err();
        assert_eq!(interface_hint(&e, &module), None);
        // At the base level, naga's next error is the matrix output, with its own hint.
        let module = parse(&source.replace(
            "texture(sampler2D(bones, s), vec2(0.5))",
            "textureLod(sampler2D(bones, s), vec2(0.5), 0.0)",
        ))
        .unwrap();
        let e = strict().validate(&module).unwrap_err();
        let hint = interface_hint(&e, &module).expect("a hint");
        assert!(hint.contains("split it into 3 vec3 values"), "{hint}");
    }

    #[test]
    fn an_entry_point_error_is_placed_at_its_fn() {
        // An integer fragment input without `@interpolate(flat)`: naga names the entry point
        // and gives no span.
        let source = "// fn fs(\n\n\n@fragment\nfn  fs (@location(0) j: u32) -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n";
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let e = strict().validate(&module).unwrap_err();
        assert!(e.location(source).is_none());
        let at_fn = placed(&e, Some(&module), source);
        let at = at_fn.location(source).unwrap();
        assert_eq!((at.line_number, at.line_position), (5, 1));
        let text = at_fn.emit_to_string_with_path(source, "s.wgsl");
        assert!(text.contains("s.wgsl:5:1"), "{text}");
        assert!(
            text.contains("Entry point fs at Fragment is invalid"),
            "{text}"
        );
        // A type written inline, invalid: placed at the global that holds it.
        let source = "\n@group(0) @binding(0) var<storage> a: array<array<f32>, 4>;\n@compute @workgroup_size(1) fn main() { _ = a[0][0]; }\n";
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let e = strict().validate(&module).unwrap_err();
        assert!(e.location(source).is_none(), "{e:?}");
        let text = placed(&e, Some(&module), source).emit_to_string_with_path(source, "s.wgsl");
        assert!(text.contains("s.wgsl:2:"), "{text}");
        // Not a declaration: a call, a longer name, a comment, a name of other letters.
        assert!(!function_span("fn foêt() {}\nfn fôo() {}", "for").is_defined());
        assert!(!function_span("let a = fsx(1);\nfn fs2() {}", "fs").is_defined());
    }
}
