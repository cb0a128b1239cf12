//! A vertex entry point copied as a regular function, which the harness's compute entry point can call.
//!
//! WGSL cannot call an entry point, so a vertex stage that skins inline (no skinning function of
//! its own) is captured through a copy: the same body under a new name, its parameters and result
//! written without their IO attributes. The body is the shader's text as written; only the
//! signature is rewritten, from naga's reading of it.

use naga::common::wgsl::TypeContext;

/// The name of the copy.
pub const BODY: &str = "skinproof_vertex_body";

/// `source` with its comments blanked to spaces, byte for byte, so that searches in it skip them
/// and its offsets are the source's. Block comments nest, as WGSL's do.
fn blanked(source: &str) -> Vec<u8> {
    let mut out = source.as_bytes().to_vec();
    let b = source.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < b.len() {
        let pair = (b[i], b.get(i + 1).copied());
        if depth == 0 && pair == (b'/', Some(b'/')) {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
            continue;
        }
        if pair == (b'/', Some(b'*')) {
            depth += 1;
            out[i..i + 2].fill(b' ');
            i += 2;
            continue;
        }
        if depth > 0 && pair == (b'*', Some(b'/')) {
            depth -= 1;
            out[i..i + 2].fill(b' ');
            i += 2;
            continue;
        }
        if depth > 0 && b[i] != b'\n' {
            out[i] = b' ';
        }
        i += 1;
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The body of function `name` in `source`, from its `{` through the matching `}`.
pub fn body<'a>(source: &'a str, name: &str) -> Option<&'a str> {
    let text = blanked(source);
    let mut from = 0;
    let start = loop {
        let at = from + find(&text[from..], b"fn")?;
        from = at + 2;
        let before = at.checked_sub(1).map(|k| text[k]);
        if before.is_some_and(is_ident) {
            continue;
        }
        let rest = &text[at + 2..];
        let skip = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
        if skip == 0 || !rest[skip..].starts_with(name.as_bytes()) {
            continue;
        }
        let after = rest.get(skip + name.len()).copied();
        if after.is_some_and(is_ident) {
            continue;
        }
        break at;
    };
    let open = start + find(&text[start..], b"{")?;
    let mut depth = 0usize;
    for (k, &c) in text[open..].iter().enumerate() {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return source.get(open..open + k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The copy of vertex entry point `ep` of `module` (whose text is `source`) as the regular
/// function [`BODY`], or why it cannot be made.
pub fn copy(module: &naga::Module, ep: &naga::EntryPoint, source: &str) -> Result<String, String> {
    let name = &ep.name;
    let body = body(source, name)
        .ok_or_else(|| format!("the body of entry point `{name}` is not found in the text"))?;
    let types = &module.types;
    let mut params = Vec::new();
    for (k, arg) in ep.function.arguments.iter().enumerate() {
        let arg_name = arg
            .name
            .clone()
            .ok_or_else(|| format!("entry point `{name}`: argument {k} has no name"))?;
        params.push(format!("{arg_name}: {}", types.type_to_string(arg.ty)));
    }
    let result = ep.function.result.as_ref().map_or(String::new(), |r| {
        format!(" -> {}", types.type_to_string(r.ty))
    });
    Ok(format!(
        "\nfn {BODY}({}){result} {body}\n",
        params.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_is_found_past_comments_and_look_alikes() {
        let src = "// fn vs() { no }\n/* fn vs() { /* nested */ no } */\nfn vs_other() { no }\n@vertex fn vs(@location(0) p: vec3<f32>) -> @builtin(position) vec4<f32> {\n  if (true) { return vec4<f32>(p, 1.0); } // }\n  return vec4<f32>();\n}\nfn after() {}";
        assert_eq!(
            body(src, "vs"),
            Some("{\n  if (true) { return vec4<f32>(p, 1.0); } // }\n  return vec4<f32>();\n}")
        );
        assert_eq!(body(src, "missing"), None);
    }

    #[test]
    fn the_copy_is_a_function_naga_accepts_beside_the_entry_point() {
        let src = "struct In { @location(0) p: vec3<f32>, @builtin(instance_index) inst: u32 }\nstruct Out { @builtin(position) clip: vec4<f32>, @location(0) n: vec3<f32> }\n@vertex fn vs(input: In, @builtin(vertex_index) vi: u32) -> Out {\n  var o: Out;\n  o.clip = vec4<f32>(input.p, f32(vi));\n  return o;\n}\n";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let copied = copy(&module, &module.entry_points[0], src).unwrap();
        assert!(
            copied.starts_with("\nfn skinproof_vertex_body(input: In, vi: u32) -> Out {"),
            "{copied}"
        );
        let both = format!("{src}{copied}");
        let module = naga::front::wgsl::parse_str(&both).unwrap();
        naga::valid::Validator::new(Default::default(), Default::default())
            .validate(&module)
            .unwrap();
    }
}
