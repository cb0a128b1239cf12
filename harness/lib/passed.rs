//! The integer arguments a shader passes its skinning (normal, tangent) function after the
//! influences, written again as WGSL the harness's added stage can pass: a member of a buffer
//! that stage binds (an engine's per-draw joint count), a constant or a literal; 0 otherwise.

use naga::{Expression, Handle, Literal, ScalarKind, Statement, TypeInner};

use crate::contract::{Contract, Pipeline};
use crate::naga_walk::for_each_statement;

/// The names the added compute stage gives its own values (`capture`'s `id`, `i`, `p`): a global
/// of one of them would be hidden there, so an argument reading it is passed 0.
const ADDED_LOCALS: [&str; 3] = ["id", "i", "p"];

/// The last `count` arguments of the shader's first call to function `name`, each after a comma,
/// as WGSL the added compute stage can evaluate (`, draw.joint_count`); an argument it cannot
/// (an instance index, a value computed in the caller) is `0`, the instance the render draws.
/// Where no function calls `name`, every argument is `0`. The first call in the module's order
/// decides, wherever it is (an engine's shadow pass may pass what its main pass does not).
pub(crate) fn trailing(
    module: &naga::Module,
    contract: &Contract,
    name: &str,
    count: usize,
) -> String {
    let call = first_call(module, name);
    (0..count)
        .map(|k| {
            let written = call.as_ref().and_then(|(f, args)| {
                let arg = *args.get((args.len() + k).checked_sub(count)?)?;
                Reader {
                    module,
                    contract,
                    f,
                }
                .value(arg)
            });
            format!(", {}", written.unwrap_or_else(|| "0".into()))
        })
        .collect()
}

/// The caller and the arguments of the module's first call to function `name`, its entry
/// points' calls included.
fn first_call<'m>(
    module: &'m naga::Module,
    name: &str,
) -> Option<(&'m naga::Function, Vec<Handle<Expression>>)> {
    let callers = (module.functions.iter().map(|(_, f)| f))
        .chain(module.entry_points.iter().map(|e| &e.function));
    for f in callers {
        let mut found: Option<Vec<Handle<Expression>>> = None;
        for_each_statement(&f.body, &mut |s| {
            if let Statement::Call {
                function,
                arguments,
                ..
            } = s
            {
                if found.is_none() && module.functions[*function].name.as_deref() == Some(name) {
                    found = Some(arguments.clone());
                }
            }
        });
        if let Some(args) = found {
            return Some((f, args));
        }
    }
    None
}

/// Reads expressions of function `f` back as WGSL.
struct Reader<'a> {
    module: &'a naga::Module,
    contract: &'a Contract,
    f: &'a naga::Function,
}

/// WGSL text and the type of what it reads (None for a scalar or a vector's lane).
type Read = (String, Option<Handle<naga::Type>>);

impl Reader<'_> {
    /// An integer value: a literal, a named constant, a conversion of one, the instance index
    /// (`0u`, the instance the render draws), or a member of a binding the added stage binds,
    /// loaded through its pointer or from a loaded struct (`let model = models[instance_id];
    /// model.flags.z`).
    fn value(&self, e: Handle<Expression>) -> Option<String> {
        match self.f.expressions[e] {
            Expression::Literal(Literal::U32(v)) => Some(format!("{v}u")),
            // The least i32 has no literal of its own.
            Expression::Literal(Literal::I32(i32::MIN)) => Some("(-2147483647i - 1i)".into()),
            Expression::Literal(Literal::I32(v)) => Some(format!("{v}i")),
            Expression::Literal(Literal::AbstractInt(v)) => Some(v.to_string()),
            Expression::Constant(c) => self.module.constants[c].name.clone(),
            Expression::As {
                expr,
                kind,
                convert: Some(4),
            } => {
                let to = match kind {
                    ScalarKind::Uint => "u32",
                    ScalarKind::Sint => "i32",
                    _ => return None,
                };
                Some(format!("{to}({})", self.value(expr)?))
            }
            _ if self.instance_index(e) => Some("0u".into()),
            _ => self.read(e).map(|(text, _)| text),
        }
    }

    /// Whether `e` is the caller's instance index: its argument, or a member of its input struct
    /// (`in.instance_index`), converted or not.
    fn instance_index(&self, e: Handle<Expression>) -> bool {
        let builtin = Some(naga::Binding::BuiltIn(naga::BuiltIn::InstanceIndex));
        match self.f.expressions[e] {
            Expression::As { expr, .. } => self.instance_index(expr),
            Expression::FunctionArgument(k) => {
                (self.f.arguments.get(k as usize)).is_some_and(|a| a.binding == builtin)
            }
            Expression::AccessIndex { base, index } => {
                let Expression::FunctionArgument(k) = self.f.expressions[base] else {
                    return false;
                };
                let Some(arg) = self.f.arguments.get(k as usize) else {
                    return false;
                };
                match &self.module.types[arg.ty].inner {
                    TypeInner::Struct { members, .. } => members
                        .get(index as usize)
                        .is_some_and(|m| m.binding == builtin),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    /// A place in a global the added stage binds (a pointer), or a value loaded from one, reached
    /// by constant indices or the instance index (element 0).
    fn read(&self, e: Handle<Expression>) -> Option<Read> {
        match self.f.expressions[e] {
            Expression::GlobalVariable(g) => {
                let global = &self.module.global_variables[g];
                let at = global.binding.as_ref()?;
                let bound = self.contract.slots.iter().any(|s| {
                    (s.group, s.binding) == (at.group, at.binding) && s.used_by(Pipeline::Compute)
                });
                let name = global.name.clone()?;
                (bound && !ADDED_LOCALS.contains(&name.as_str())).then_some(())?;
                Some((name, Some(global.ty)))
            }
            Expression::Load { pointer } => self.read(pointer),
            Expression::Access { base, index } if self.instance_index(index) => {
                let (text, ty) = self.read(base)?;
                match &self.module.types[ty?].inner {
                    TypeInner::Array { base, .. } => Some((format!("{text}[0]"), Some(*base))),
                    _ => None,
                }
            }
            Expression::AccessIndex { base, index } => {
                let (text, ty) = self.read(base)?;
                let index = index as usize;
                match &self.module.types[ty?].inner {
                    TypeInner::Struct { members, .. } => {
                        let m = members.get(index)?;
                        Some((format!("{text}.{}", m.name.as_ref()?), Some(m.ty)))
                    }
                    TypeInner::Array { base, .. } => {
                        Some((format!("{text}[{index}]"), Some(*base)))
                    }
                    TypeInner::Vector { .. } => {
                        let lane = ["x", "y", "z", "w"].get(index)?;
                        Some((format!("{text}.{lane}"), None))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::trailing;
    use crate::contract::{Contract, Pipeline, Role, Slot, Space, Want};

    /// A buffer the harness fills at (`group`, `binding`), bound to `pipelines`.
    fn filled(group: u32, binding: u32, pipelines: Vec<Pipeline>) -> Slot {
        Slot {
            role: Role::Filled(0),
            group,
            binding,
            space: Space::Uniform,
            ty: Want::Filled,
            holds: "a buffer the harness fills".into(),
            pipelines,
            origin: None,
        }
    }

    /// The shader's own arguments where the added compute stage binds what they read (a member,
    /// converted too), the instance index as `0u` (the instance the render draws), `0` where it
    /// cannot (a binding only the render pipeline has), and `0` for every argument of a function
    /// no one calls.
    #[test]
    fn the_callers_arguments_are_passed_where_the_added_stage_binds_them() {
        let src = "struct Draw { model: mat4x4<f32>, joint_count: u32 }
@group(1) @binding(0) var<uniform> draw: Draw;
@group(2) @binding(0) var<uniform> other: u32;
const LIMIT: u32 = 64u;
fn skin(j: vec4<u32>, w: vec4<f32>, n: u32, ii: u32, o: u32, s: i32, l: u32) -> mat4x4<f32> {
    return mat4x4<f32>(w * f32(n + ii + o + u32(s) + l), w, w, w);
}
@vertex fn vs(@location(0) j: vec4<u32>, @location(1) w: vec4<f32>, @builtin(instance_index) ii: u32) -> @builtin(position) vec4<f32> {
    let m = skin(j, w, draw.joint_count, ii, other, i32(draw.joint_count), LIMIT);
    return m[0];
}
";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let mut c = Contract::builtin();
        c.slots
            .push(filled(1, 0, vec![Pipeline::Compute, Pipeline::Render]));
        c.slots.push(filled(2, 0, vec![Pipeline::Render]));
        assert_eq!(
            trailing(&module, &c, "skin", 5),
            ", draw.joint_count, 0u, 0, i32(draw.joint_count), LIMIT"
        );
        assert_eq!(trailing(&module, &c, "skin", 1), ", LIMIT");
        assert_eq!(trailing(&module, &c, "nobody", 2), ", 0, 0");
    }

    /// A member of the drawn instance's element (`let model = models[instance_id];
    /// model.flags.z`) is read from element 0, the instance the render draws.
    #[test]
    fn the_drawn_instances_element_is_element_0() {
        let src = "struct Model { transform: mat4x4<f32>, flags: vec4<u32> }
@group(1) @binding(0) var<storage, read> models: array<Model>;
fn skin(j: vec4<u32>, w: vec4<f32>, offset: u32, count: u32) -> mat4x4<f32> {
    return mat4x4<f32>(w * f32(offset + count), w, w, w);
}
@vertex fn vs(@location(0) j: vec4<u32>, @location(1) w: vec4<f32>, @builtin(instance_index) instance_id: u32) -> @builtin(position) vec4<f32> {
    let model = models[instance_id];
    let bone_count = model.flags.z;
    return skin(j, w, model.flags.y, bone_count)[0];
}
";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let mut c = Contract::builtin();
        c.slots
            .push(filled(1, 0, vec![Pipeline::Compute, Pipeline::Render]));
        assert_eq!(
            trailing(&module, &c, "skin", 2),
            ", models[0].flags.y, models[0].flags.z"
        );
        // The instance index as a member of the stage's input struct, converted; a global the
        // added stage's own `p` would hide is passed 0.
        let src = src
            .replace("@builtin(instance_index) instance_id: u32)", "v: V)")
            .replace("models[instance_id]", "p[i32(v.instance_id)]")
            .replace("var<storage, read> models", "var<storage, read> p")
            .replace(
                "@vertex",
                "struct V { @builtin(instance_index) instance_id: u32 }\n@vertex",
            );
        let module = naga::front::wgsl::parse_str(&src).unwrap();
        assert_eq!(trailing(&module, &c, "skin", 2), ", 0, 0");
        let named = src
            .replace("p[i32", "models[i32")
            .replace("> p:", "> models:");
        let module = naga::front::wgsl::parse_str(&named).unwrap();
        assert_eq!(
            trailing(&module, &c, "skin", 2),
            ", models[0].flags.y, models[0].flags.z"
        );
    }
}
