#define_import_path view::camera

struct Camera {
    view_proj: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;

fn to_clip(world: vec3<f32>) -> vec4<f32> {
    return camera.view_proj * vec4<f32>(world, 1.0);
}
