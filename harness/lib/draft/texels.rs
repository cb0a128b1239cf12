//! How the shader reads a bone texture, from its `textureLoad`s: which texture is read texel by
//! texel, how many texels a joint takes, and whether they lie in one row.

use naga::{BinaryOperator, Expression, Handle, Module};

/// What the `textureLoad`s of one texture say about its layout.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Loads {
    /// How many loads read it (0: the texture is never read texel by texel).
    pub(super) count: usize,
    /// The texels a joint takes, where the loads read a run of them at constant steps from one
    /// index (`offset + 0` .. `offset + 3`): the longest such run.
    pub(super) run: usize,
    /// Whether every load reads row 0 (a texture one texel high, joints side by side); where it
    /// is only sampled, whether every sample reads one constant row.
    pub(super) one_row: bool,
    /// The constant a function that loads divides an integer by (`index / 64`, `index % 64`): the
    /// texture's width where the shader fixes it, rather than reading `textureDimensions`.
    pub(super) width: Option<i64>,
    /// Whether every load reads a constant column of a row it computes (`vec2i(k, joint)`): a
    /// joint a row, its texels its columns.
    pub(super) own_rows: bool,
}

/// The `textureLoad`s of texture global `texture`, in every function and entry point: read
/// directly, or through a function argument where `texture` is the module's only candidate
/// (`fn read(smp: texture_2d<f32>, ...)`, called with it).
pub(super) fn loads(module: &Module, texture: Handle<naga::GlobalVariable>, only: bool) -> Loads {
    let mut out = Loads {
        one_row: true,
        own_rows: true,
        ..Loads::default()
    };
    // The samples: how many, and whether each reads a constant row.
    let (mut samples, mut sampled_row) = (0, true);
    let ours = |f: &naga::Function, image| reads(f, image, texture, only);
    for f in crate::shader::all_functions(module) {
        let mut steps = Vec::new();
        for (_, e) in f.expressions.iter() {
            // Sampled at texel centres (Babylon.js's `vec2(dx * (offset + 0.5), 0.)`): one row
            // where the second coordinate is a constant; the texels a joint are not traced.
            if let Expression::ImageSample {
                image, coordinate, ..
            } = *e
            {
                if ours(f, image) {
                    samples += 1;
                    sampled_row &= match f.expressions[coordinate] {
                        Expression::Compose { ref components, .. } => {
                            components.len() == 2
                                && super::read::number(module, f, components[1]).is_some()
                        }
                        _ => false,
                    };
                }
                continue;
            }
            let Expression::ImageLoad {
                image, coordinate, ..
            } = *e
            else {
                continue;
            };
            if !ours(f, image) {
                continue;
            }
            out.count += 1;
            if let Some(c) = place(module, f, coordinate, 0) {
                out.one_row &= c.y == Some(0);
                out.own_rows &= c.x.is_some() && c.y.is_none();
                steps.push(c.step);
            } else {
                out.one_row = false;
                out.own_rows = false;
            }
        }
        out.run = out.run.max(run(&steps));
        if !steps.is_empty() {
            out.width = out.width.or_else(|| divisor(module, f));
        }
    }
    if out.count == 0 {
        out.one_row = samples > 0 && sampled_row;
        out.own_rows = false;
    }
    out
}

/// The sampler global `texture` is sampled through (`textureSampleLevel(bones, s, ...)`), read
/// directly or, where it is the only candidate, through a function argument; the first found.
pub(super) fn sampler_of(
    module: &Module,
    texture: Handle<naga::GlobalVariable>,
    only: bool,
) -> Option<Handle<naga::GlobalVariable>> {
    crate::shader::all_functions(module).find_map(|f| {
        f.expressions.iter().find_map(|(_, e)| {
            let Expression::ImageSample { image, sampler, .. } = *e else {
                return None;
            };
            let ours = reads(f, image, texture, only);
            match f.expressions[sampler] {
                Expression::GlobalVariable(s) if ours => Some(s),
                _ => None,
            }
        })
    })
}

/// Whether `image` is texture global `texture`, or a function argument where `only` (the module's
/// one candidate, passed to the function that reads it).
fn reads(
    f: &naga::Function,
    image: Handle<Expression>,
    texture: Handle<naga::GlobalVariable>,
    only: bool,
) -> bool {
    match f.expressions[image] {
        Expression::GlobalVariable(g) => g == texture,
        Expression::FunctionArgument(_) => only,
        _ => false,
    }
}

/// What a load's texel coordinate says: the step its x adds to a joint's first texel (see
/// [`step`]), and its x and y where they are constants.
struct Place {
    step: Option<i64>,
    x: Option<i64>,
    y: Option<i64>,
}

/// The [`Place`] of coordinate `c`: composed (`vec2i(o + 1, 0)`), a constant offset added to one
/// (sokol's `uv + ivec2(1, 0)`), or a local variable's first stored value (`uv = ivec2(3 * j,
/// instance)`).
fn place(module: &Module, f: &naga::Function, c: Handle<Expression>, depth: u8) -> Option<Place> {
    if depth > 4 {
        return None;
    }
    match f.expressions[c] {
        Expression::Compose { ref components, .. } => match components[..] {
            [x, y] => Some(Place {
                step: step(module, f, x),
                x: constant(module, f, x),
                y: constant(module, f, y),
            }),
            _ => None,
        },
        Expression::Binary {
            op: BinaryOperator::Add,
            left,
            right,
        } => {
            let pairs = [(left, right), (right, left)];
            let (base, (dx, dy)) =
                (pairs.iter()).find_map(|&(b, o)| Some((b, constant_pair(module, f, o)?)))?;
            let p = place(module, f, base, depth + 1)?;
            Some(Place {
                step: p.step.map(|s| s + dx),
                x: p.x.map(|x| x + dx),
                y: p.y.map(|y| y + dy),
            })
        }
        Expression::Load { pointer } => {
            let Expression::LocalVariable(l) = f.expressions[pointer] else {
                return None;
            };
            let mut stored = f.local_variables[l].init;
            crate::shader::for_each_statement(&f.body, &mut |s| {
                if let naga::Statement::Store { pointer: p, value } = *s {
                    if stored.is_none()
                        && matches!(f.expressions[p], Expression::LocalVariable(x) if x == l)
                    {
                        stored = Some(value);
                    }
                }
            });
            place(module, f, stored?, depth + 1)
        }
        _ => None,
    }
}

/// A two-component constant vector's components (`ivec2(1, 0)`, or its zero value).
fn constant_pair(module: &Module, f: &naga::Function, e: Handle<Expression>) -> Option<(i64, i64)> {
    match f.expressions[e] {
        Expression::Compose { ref components, .. } => match components[..] {
            [x, y] => Some((constant(module, f, x)?, constant(module, f, y)?)),
            _ => None,
        },
        Expression::ZeroValue(_) => Some((0, 0)),
        _ => None,
    }
}

/// The constant `f` divides an integer by or takes one modulo, if any.
fn divisor(module: &Module, f: &naga::Function) -> Option<i64> {
    f.expressions.iter().find_map(|(_, e)| match *e {
        Expression::Binary {
            op: BinaryOperator::Divide | BinaryOperator::Modulo,
            right,
            ..
        } => constant(module, f, right).filter(|&c| c > 1),
        _ => None,
    })
}

/// The longest run 0, 1, 2, ... among the constant steps the loads add to their x.
fn run(steps: &[Option<i64>]) -> usize {
    (0..).take_while(|k| steps.contains(&Some(*k))).count()
}

/// The constant an x coordinate adds to its index: `k` of `index + k` (0 of a bare index, which
/// is none of these forms), or a constant x itself (column k of a joint's own row), through the
/// casts naga keeps.
fn step(module: &Module, f: &naga::Function, x: Handle<Expression>) -> Option<i64> {
    match f.expressions[x] {
        Expression::Binary {
            op: BinaryOperator::Add,
            left,
            right,
        } => constant(module, f, right).or_else(|| constant(module, f, left)),
        Expression::As { expr, .. } => step(module, f, expr),
        _ => constant(module, f, x).or(Some(0)),
    }
}

/// The value of an integer constant expression: a literal or a named constant (a float one
/// whole), through casts.
pub(super) fn constant(module: &Module, f: &naga::Function, e: Handle<Expression>) -> Option<i64> {
    super::read::number(module, f, e)
        .filter(|x| x.fract() == 0.0)
        .map(|x| x as i64)
}

/// The constants a joint index is multiplied by, in any function (`in.joints[k] * 8u`): the
/// texels a joint takes where they are more than its matrix's (its normal matrix after it, as the
/// glTF Sample Viewer's joint texture holds them). A joint index is an element or member of an
/// argument, or a value loaded from one or from a local variable, named as joints.
pub(super) fn joint_strides(module: &Module) -> Vec<i64> {
    let named_joint =
        |name: Option<&str>| name.is_some_and(|n| super::read::named(n, super::read::JOINT_WORDS));
    let mut out = Vec::new();
    for f in crate::shader::all_functions(module) {
        // Whether `e` reads a joint index: through accesses, loads and conversions to an
        // argument (or its member) named as joints.
        let joint = |mut e: Handle<Expression>| loop {
            match f.expressions[e] {
                Expression::Access { base, .. }
                | Expression::Swizzle { vector: base, .. }
                | Expression::Load { pointer: base }
                | Expression::As { expr: base, .. } => e = base,
                Expression::AccessIndex { base, index } => match f.expressions[base] {
                    Expression::FunctionArgument(i) => {
                        let a = &f.arguments[i as usize];
                        return match &module.types[a.ty].inner {
                            naga::TypeInner::Struct { members, .. } => named_joint(
                                members.get(index as usize).and_then(|m| m.name.as_deref()),
                            ),
                            _ => named_joint(a.name.as_deref()),
                        };
                    }
                    _ => e = base,
                },
                Expression::FunctionArgument(i) => {
                    return named_joint(f.arguments[i as usize].name.as_deref())
                }
                // A local variable named so (naga's reading of GLSL copies each argument into
                // one: `joints_1`).
                Expression::LocalVariable(l) => {
                    return named_joint(f.local_variables[l].name.as_deref())
                }
                _ => return false,
            }
        };
        for (_, e) in f.expressions.iter() {
            if let Expression::Binary {
                op: BinaryOperator::Multiply,
                left,
                right,
            } = *e
            {
                for (j, k) in [(left, right), (right, left)] {
                    if let Some(k) = constant(module, f, k).filter(|_| joint(j)) {
                        out.push(k);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(src: &str, only: bool) -> Loads {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let (t, _) = (module.global_variables.iter())
            .find(|(_, g)| g.name.as_deref() == Some("bones"))
            .unwrap();
        loads(&module, t, only)
    }

    #[test]
    fn four_texels_in_one_row_through_a_function_argument() {
        let src = "@group(0) @binding(0) var bones: texture_2d<f32>;
fn m(smp: texture_2d<f32>, index: f32) -> mat4x4<f32> {
    let o = i32(index) * 4;
    return mat4x4<f32>(textureLoad(smp, vec2<i32>(o + 0, 0), 0), textureLoad(smp, vec2<i32>(o + 1, 0), 0),
        textureLoad(smp, vec2<i32>(o + 2, 0), 0), textureLoad(smp, vec2<i32>(o + 3, 0), 0));
}
@vertex fn vs(@location(0) j: vec4<f32>) -> @builtin(position) vec4<f32> { return m(bones, j.x)[3]; }";
        let l = read(src, true);
        assert_eq!((l.count, l.run, l.one_row, l.width), (4, 4, true, None));
        // Not the only texture: an argument could be another one's.
        assert_eq!(read(src, false).count, 0);
    }

    #[test]
    fn three_texels_wrapped_by_the_textures_width() {
        let src = "@group(0) @binding(0) var bones: texture_2d<f32>;
@vertex fn vs(@location(0) j: vec4<u32>) -> @builtin(position) vec4<f32> {
    let w = i32(textureDimensions(bones).x);
    let i = i32(j.x) * 3;
    let u = i % w;
    let v = i / w;
    return textureLoad(bones, vec2i(u, v), 0) + textureLoad(bones, vec2i(u + 1, v), 0)
        + textureLoad(bones, vec2i(u + 2, v), 0);
}";
        let l = read(src, false);
        assert_eq!((l.count, l.run, l.one_row, l.width), (3, 3, false, None));
        // A width the shader fixes.
        let fixed = src.replace("i32(textureDimensions(bones).x)", "48");
        assert_eq!(read(&fixed, false).width, Some(48));
    }

    #[test]
    fn a_joint_a_row_its_texels_the_columns() {
        let src = "@group(0) @binding(0) var bones: texture_2d<f32>;
fn m(j: u32) -> mat4x4f {
    let row = i32(j);
    return mat4x4f(textureLoad(bones, vec2i(0, row), 0), textureLoad(bones, vec2i(1, row), 0),
        textureLoad(bones, vec2i(2, row), 0), textureLoad(bones, vec2i(3, row), 0));
}
@vertex fn vs(@location(0) j: vec4<u32>) -> @builtin(position) vec4<f32> { return m(j.x)[3]; }";
        let l = read(src, false);
        assert_eq!((l.count, l.run, l.one_row, l.own_rows), (4, 4, false, true));
        // A column computed from the joint is no row of its own.
        let computed = src.replace("vec2i(0, row)", "vec2i(row, 0)");
        assert!(!read(&computed, false).own_rows);
    }

    /// sokol's ozz-skin: a coordinate stored once per influence, `ivec2(3 * j, instance)`, and
    /// each of a joint's three texels at a constant offset from it.
    #[test]
    fn three_texels_at_offsets_from_a_stored_coordinate() {
        let src = "@group(0) @binding(0) var bones: texture_2d<f32>;
@vertex fn vs(@location(0) j: vec4<u32>, @builtin(instance_index) inst: u32) -> @builtin(position) vec4<f32> {
    var uv: vec2<i32>;
    uv = vec2<i32>(3 * i32(j.x), i32(inst));
    let a = textureLoad(bones, uv, 0);
    let b = textureLoad(bones, uv + vec2<i32>(1, 0), 0);
    let c = textureLoad(bones, uv + vec2<i32>(2, 0), 0);
    return a + b + c;
}";
        let l = read(src, false);
        assert_eq!(
            (l.count, l.run, l.one_row, l.own_rows),
            (3, 3, false, false)
        );
    }

    #[test]
    fn a_texture_only_sampled_has_no_loads() {
        let src = "@group(0) @binding(0) var bones: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@fragment fn fs() -> @location(0) vec4<f32> { return textureSample(bones, s, vec2<f32>(0.5)); }";
        assert_eq!(read(src, true), Loads::default());
    }
}
