//! One case on one adapter: the CPU reference and both GPU paths, computed once for all its checks.

use image::RgbaImage;

use crate::case::Case;
use crate::gpu::{self, Context, GpuError};
use crate::reference;
use crate::scene::Scene;

/// Everything the checks of one (case, adapter) compare.
pub struct Run {
    pub scene: Scene,
    pub cpu_bind: Vec<[f32; 3]>,
    pub cpu_posed: Vec<[f32; 3]>,
    pub gpu_bind: Result<Vec<[f32; 3]>, GpuError>,
    pub gpu_posed: Result<Vec<[f32; 3]>, GpuError>,
    pub image_bind: Result<RgbaImage, GpuError>,
    pub image_posed: Result<RgbaImage, GpuError>,
}

impl Run {
    pub fn execute(ctx: &Context, case: &Case) -> Run {
        let scene = Scene::from_case(case);
        let mesh = &scene.mesh;
        let view = case.view();
        let (w, h) = (case.render.width, case.render.height);
        Run {
            cpu_bind: reference::skin(&scene.bind_palette, mesh),
            cpu_posed: reference::skin(&scene.posed_palette, mesh),
            gpu_bind: gpu::compute::skin(ctx, &scene.bind_palette, mesh),
            gpu_posed: gpu::compute::skin(ctx, &scene.posed_palette, mesh),
            image_bind: gpu::render::render(ctx, &scene.bind_palette, mesh, view, w, h),
            image_posed: gpu::render::render(ctx, &scene.posed_palette, mesh, view, w, h),
            scene,
        }
    }
}
