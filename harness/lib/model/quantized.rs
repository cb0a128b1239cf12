//! KHR_mesh_quantization: the file's validation without refusing it (nor meshopt compression),
//! and positions, normals and tangents read as floats from whichever component type the
//! extension allows.

use gltf::accessor::{DataType, Item, Iter};

/// The extension's name, as `extensionsUsed` and `extensionsRequired` list it.
pub(super) const EXTENSION: &str = "KHR_mesh_quantization";

/// The `gltf` crate's validation of the document, but for the required extensions `read_here`
/// (KHR_mesh_quantization, meshopt compression), which the crate refuses as it refuses every
/// required extension it does not parse, and this loader reads.
pub(super) fn validate(doc: &gltf::Document, read_here: &[&str]) -> Result<(), gltf::Error> {
    use gltf::json::validation::{Error, Validate};
    let root = doc.as_json();
    let mut errors = Vec::new();
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        let path = path();
        let ours = error == Error::Unsupported
            && path.as_str().starts_with("extensionsRequired[")
            && (read_here.iter()).any(|e| path.as_str().ends_with(&format!("= \"{e}\"")));
        if !ours {
            errors.push((path, error));
        }
    });
    if errors.is_empty() {
        Ok(())
    } else {
        Err(gltf::Error::Validation(errors))
    }
}

/// The accessor's elements as floats: f32 as stored, integers as the extension says, scaled to
/// [-1, 1] or [0, 1] where the accessor is normalized (glTF 2.0 3.11: `max(c / 127, -1)` for i8,
/// `c / 255` for u8, and so on) and as they are where it is not. None where its data lie outside
/// its buffer, or its type is none of these (the caller checked it).
pub(super) fn read<'a, 's, F, const N: usize>(
    acc: gltf::Accessor<'a>,
    get: F,
) -> Option<Vec<[f32; N]>>
where
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
    [f32; N]: Item,
    [i8; N]: Item,
    [u8; N]: Item,
    [i16; N]: Item,
    [u16; N]: Item,
{
    let normalized = acc.normalized();
    fn each<'a, 's, T: Copy, const N: usize>(
        acc: gltf::Accessor<'a>,
        get: impl Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
        f: impl Fn(T) -> f32,
    ) -> Option<Vec<[f32; N]>>
    where
        [T; N]: Item,
    {
        Some(Iter::<[T; N]>::new(acc, get)?.map(|v| v.map(&f)).collect())
    }
    let unit = |c: f32, max: f32| if normalized { (c / max).max(-1.0) } else { c };
    match acc.data_type() {
        DataType::F32 => each(acc, get, |c: f32| c),
        DataType::I8 => each(acc, get, |c: i8| unit(f32::from(c), 127.0)),
        DataType::U8 => each(acc, get, |c: u8| unit(f32::from(c), 255.0)),
        DataType::I16 => each(acc, get, |c: i16| unit(f32::from(c), 32767.0)),
        DataType::U16 => each(acc, get, |c: u16| unit(f32::from(c), 65535.0)),
        DataType::U32 => None,
    }
}
